import { render } from 'preact';
import { App } from './app';
import { interceptLinks } from './routes';
import './style.css';

const root = document.getElementById('app')!;
interceptLinks(root);
render(<App />, root);
