// Placeholder: this page is being built (issue 12).
export default function LoginPage() {
  return <h1>account/login</h1>;
}
