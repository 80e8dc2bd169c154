// Placeholder: this page is being built (issue 12).
export default function MePage() {
  return <h1>account/me</h1>;
}
