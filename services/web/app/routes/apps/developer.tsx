// Placeholder: this page is being built (issue 12).
export default function DeveloperPage() {
  return <h1>apps/developer</h1>;
}
