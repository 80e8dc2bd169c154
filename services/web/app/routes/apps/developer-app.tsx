// Placeholder: this page is being built (issue 12).
export default function DeveloperAppPage() {
  return <h1>apps/developer-app</h1>;
}
