import './app.css';
import { mount } from 'svelte';
import App from './App.svelte';
import { connectApi, createTransport } from './lib/api.js';

const target = document.getElementById('app');
if (!target) throw new Error('Drover: the #app element is missing from index.html');

const transport = createTransport();
const api = connectApi(transport);

mount(App, { target, props: { api, transport } });
