import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';

function App() {
  return <p>Loading trading platform...</p>;
}

const root = document.getElementById('root');
if (root)
  createRoot(root).render(
    <StrictMode>
      <App />
    </StrictMode>,
  );
