// Placeholder: this page is being built (issue 12).
export default function SitePage() {
  return <h1>sites/site</h1>;
}
