import { render } from 'preact';
import { App } from './app';
import { installKeys } from './keyboard';
import { interceptLinks } from './routes';
import './style.css';

const root = document.getElementById('app')!;
interceptLinks(root);
installKeys(root);
render(<App />, root);
