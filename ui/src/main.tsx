import { render } from 'preact';
import { requestSnapshotEarly } from './api';
import { App } from './app';
import { followEarly } from './live';
import { installKeys } from './keyboard';
import { interceptLinks, parseRoute } from './routes';
import './style.css';

const route = parseRoute(window.location);
if (route.view !== 'catalog') {
  requestSnapshotEarly(route.project);
  followEarly(route.project);
}
const root = document.getElementById('app')!;
interceptLinks(root);
installKeys(root);
render(<App />, root);
