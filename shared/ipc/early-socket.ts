/*
 * The page's connection to the headless host, opened by the page itself as it is parsed, before
 * any of its scripts has arrived (issue 18: opening a big session). No imports but constants and
 * types (no zod): the script below is text in index.html, and boot.ts reads what it left before
 * the app loads.
 */
import { FINISHED_PAGE_DEFAULT, MESSAGE_FIRST_PAGE } from '../domain/page-sizes.js';
import { BRIDGE_KEY } from './bridge.js';
import type { WebSocketLike } from './ws-client.js';
import { HANDSHAKE_MAX_CHARS, HANDSHAKE_PARAM, WS_PATH } from './ws-connect.js';
import type { CallFrame } from './ws-protocol.js';

/** Where the page's script leaves the connection it opened, for the WebSocket client to take over. */
export const EARLY_SOCKET_KEY = '__droverEarlySocket';

/** Where a tab keeps the host's token once it has left the address bar (renderer/src/lib/api.ts). */
export const TOKEN_STORAGE_KEY = 'drover.token';

/** A connection the page's script opened, and what came on it before a client took it over. */
export interface EarlySocket {
  socket: WebSocketLike;
  /** The calls its handshake carried (OpenPrefetch's, for the route the page opens on). */
  calls: CallFrame[];
  /** The frames that came before a client took it over, oldest first, as they came. */
  frames: unknown[];
  opened: boolean;
  closed: boolean;
}

/**
 * Takes the connection the page's script opened, once: null where it opened none (Electron, no
 * token, a browser that refused) or the value is not one (a page is not to be trusted with its
 * own globals more than needed: the shape is checked).
 */
export function takeEarlySocket(page: Record<string, unknown>): EarlySocket | null {
  const early = page[EARLY_SOCKET_KEY] as Partial<EarlySocket> | undefined;
  delete page[EARLY_SOCKET_KEY];
  if (
    typeof early !== 'object' ||
    early === null ||
    typeof early.socket !== 'object' ||
    early.socket === null ||
    !Array.isArray(early.calls) ||
    !Array.isArray(early.frames) ||
    typeof early.opened !== 'boolean' ||
    typeof early.closed !== 'boolean'
  )
    return null;
  const calls = early.calls.filter(
    (call: Partial<EarlySocket['calls'][number]> | null) =>
      typeof call === 'object' &&
      call !== null &&
      call.t === 'call' &&
      Number.isSafeInteger(call.id) &&
      call.id! >= 0 &&
      typeof call.name === 'string',
  );
  return { ...(early as EarlySocket), calls };
}

/**
 * The first part of the page's one inline script (index.html, put there by the build, allowed by
 * its hash: PAGE_SCRIPT in shared/domain/page-script.ts). In a browser, with the host's token in
 * the address (or kept by the tab), it opens the host's WebSocket at once with the page's first
 * reads in its handshake: the session list, and for a session route the transcript's and the
 * tasks' first pages, the calls OpenPrefetch (renderer/src/lib/state/open-prefetch.ts) makes.
 * Until the client takes it over (createWsClient's `early`), it keeps whatever comes.
 *
 * A plain script, so it runs as the page is parsed, some 100 ms before the page's first module on a
 * first open: by the time the app is built, the answers are in. The client takes over only calls it
 * would make itself, the same name and the same input (renderer/src/lib/early-socket.test.ts holds the two
 * to the same frames); any other call is answered and dropped, and a script that fails, or a
 * connection that drops first, leaves the client to connect as it always did.
 */
export const EARLY_SOCKET_SCRIPT =
  '(function(w){try{' +
  `if(w[${JSON.stringify(BRIDGE_KEY)}]||(location.protocol!=="http:"&&location.protocol!=="https:"))return;` +
  'var t=new URLSearchParams(location.search).get("token");' +
  `if(t===null)t=w.sessionStorage.getItem(${JSON.stringify(TOKEN_STORAGE_KEY)});` +
  'if(!t)return;' +
  'var a=[{t:"call",id:1,name:"listSessions",input:{}}];' +
  // The route as parseRoute (renderer/src/lib/route.ts) reads it: a session's, with a panel that exists.
  'var h=location.hash.replace(/^#/,"").replace(/^\\/+/,"").replace(/\\/+$/,""),p=h===""?[]:h.split("/"),s=null;' +
  'try{p=p.map(decodeURIComponent)}catch(x){p=[]}' +
  'if(p[0]==="s"&&p.length>=2&&p.length<=4&&p.indexOf("")<0&&(p.length===2||p[2]==="tasks"||(p.length===3&&(p[2]==="work"||p[2]==="schedules"))))s=p[1];' +
  'if(s!==null)a.push(' +
  `{t:"call",id:2,name:"listMessages",input:{sessionId:s,limit:${MESSAGE_FIRST_PAGE + 1}}},` +
  `{t:"call",id:3,name:"openTasks",input:{sessionId:s,filter:"all",limit:${FINISHED_PAGE_DEFAULT}}});` +
  // As the client's own handshake: each call that still fits, in order (a long id waits for the open).
  'var c=[],q="";' +
  `for(var i=0;i<a.length;i++){var n=encodeURIComponent(JSON.stringify(c.concat([a[i]])));if(n.length<=${HANDSHAKE_MAX_CHARS}){c.push(a[i]);q=n}}` +
  `var e={socket:new WebSocket((location.protocol==="https:"?"wss":"ws")+"://"+location.host+${JSON.stringify(WS_PATH)}+"?token="+encodeURIComponent(t)+"&${HANDSHAKE_PARAM}="+q),calls:c,frames:[],opened:false,closed:false};` +
  'e.socket.onopen=function(){e.opened=true};' +
  'e.socket.onmessage=function(m){e.frames.push(m.data)};' +
  'e.socket.onerror=function(){};' +
  'e.socket.onclose=function(){e.closed=true};' +
  `w[${JSON.stringify(EARLY_SOCKET_KEY)}]=e` +
  '}catch(x){}})(window);';
