// Placeholder: this page is being built (issue 12).
export default function AppPage() {
  return <h1>apps/app</h1>;
}
