// Placeholder: this page is being built (issue 12).
export default function HomePage() {
  return <h1>sites/home</h1>;
}
