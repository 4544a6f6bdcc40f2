/**
 * The console's entry point (src/console/index.html loads it): a Preact app served by the daemon
 * at /console/ that calls only the public /v1 API on the same origin (docs/console.md).
 */
import { h, render } from 'preact';
import { App } from './app.js';
import './console.css';

const root = document.getElementById('app');
if (root) render(h(App, null), root);
