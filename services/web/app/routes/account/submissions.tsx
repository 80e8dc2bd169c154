// Placeholder: this page is being built (issue 12).
export default function SubmissionsPage() {
  return <h1>account/submissions</h1>;
}
