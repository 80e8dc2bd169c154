// Placeholder: this page is being built (issue 12).
export default function BookmarksPage() {
  return <h1>account/bookmarks</h1>;
}
