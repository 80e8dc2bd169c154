// Placeholder: this page is being built (issue 12).
export default function DesktopPage() {
  return <h1>apps/desktop</h1>;
}
