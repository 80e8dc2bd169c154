// Placeholder: this page is being built (issue 12).
export default function AppsPage() {
  return <h1>apps/apps</h1>;
}
