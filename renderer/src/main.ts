// First: the connection and the first requests go out before the rest of the page's code runs (boot.ts).
import { api, prefetch, transport } from './boot.js';
import './app.css';
import { mount } from 'svelte';
import App from './App.svelte';

const target = document.getElementById('app');
if (!target) throw new Error('Drover: the #app element is missing from index.html');

mount(App, { target, props: { api, transport, prefetch } });
