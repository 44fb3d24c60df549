// Replies go out rendered (issue 18: opening a big session): listMessages carries each settled
// reply's Markdown as HTML, so a page shows them before it has loaded a Markdown parser.
import { describe, expect, it } from 'vitest';
import { contract } from '../../shared/contract.js';
import { EventBus } from '../../electron/core/event-bus.js';
import { openDatabase } from '../../electron/store/database.js';
import { SessionsService } from '../../electron/sessions/sessions-service.js';
import { RENDERED_PER_ANSWER, RenderedReplies } from '../../electron/sessions/rendered-replies.js';
import { MARKER_PATTERN } from '../../shared/domain/markdown-marker.js';

function transcript() {
  const service = new SessionsService(openDatabase(':memory:'), new EventBus(contract));
  const { id } = service.create('rendered');
  service.append({ sessionId: id, role: 'user', text: 'Is *this* Markdown?' });
  const reply = service.append({
    sessionId: id,
    role: 'assistant',
    text: 'It *is*:\n\n```ts\nlet a\n```\n\nA bell \u0007.',
  });
  service.append({ sessionId: id, role: 'assistant', text: 'Still *arriving', status: 'streaming' });
  return { service, id, reply };
}

describe('replies as the host renders them', () => {
  it('renders each settled reply, and leaves the person’s messages and a reply still arriving to the page', () => {
    const { service, id } = transcript();
    const [user, reply, streaming] = new RenderedReplies().attach(service.messages(id));
    expect(user!.rendered).toBeUndefined();
    expect(streaming!.rendered).toBeUndefined();
    const rendered = reply!.rendered!;
    expect(rendered.marker).toMatch(MARKER_PATTERN);
    expect(rendered.blocks).toEqual([
      '<p>It <em>is</em>:</p>\n',
      '<pre><code class="language-ts">let a\n</code></pre>\n',
      // The bell crosses as the host's marker; the page makes it a token.
      `<p>A bell \uFDD0${rendered.marker}7\uFDD1.</p>\n`,
    ]);
    expect(rendered.languages).toEqual(['ts']);
    // What goes out still fits the contract's answer.
    expect(contract.requests.listMessages.output.safeParse([user, reply, streaming]).success).toBe(true);
  });

  it('renders a reply once while its text stays the same, and again when it changes', () => {
    const { service, id, reply } = transcript();
    const replies = new RenderedReplies();
    const first = replies.attach(service.messages(id))[1]!.rendered;
    expect(replies.attach(service.messages(id))[1]!.rendered).toBe(first);
    service.update(reply.id, { text: 'Now *different*.' });
    const changed = replies.attach(service.messages(id))[1]!.rendered!;
    expect(changed).not.toBe(first);
    expect(changed.blocks).toEqual(['<p>Now <em>different</em>.</p>\n']);
    expect(changed.marker).toBe(first!.marker);
  });

  it('uses a marker of its own per host, so no reply can know it', () => {
    const { service, id } = transcript();
    const markers = new Set(
      Array.from({ length: 5 }, () => new RenderedReplies().attach(service.messages(id))[1]!.rendered!.marker),
    );
    expect(markers.size).toBe(5);
  });

  it('renders only the newest replies of a long answer, so a whole transcript asked at once stays quick', () => {
    const service = new SessionsService(openDatabase(':memory:'), new EventBus(contract));
    const { id } = service.create('long');
    for (let i = 0; i < RENDERED_PER_ANSWER + 10; i++) {
      service.append({ sessionId: id, role: 'user', text: `question ${i}` });
      service.append({ sessionId: id, role: 'assistant', text: `answer *${i}*` });
    }
    const replies = new RenderedReplies()
      .attach(service.messages(id))
      .filter((message) => message.role === 'assistant');
    expect(replies.filter((reply) => reply.rendered).map((reply) => reply.text)).toEqual(
      Array.from({ length: RENDERED_PER_ANSWER }, (_, i) => `answer *${i + 10}*`),
    );
    expect(replies.slice(0, 10).every((reply) => reply.rendered === undefined)).toBe(true);
  });

  it('keeps renderings within its budget, dropping the one used longest ago', () => {
    const service = new SessionsService(openDatabase(':memory:'), new EventBus(contract));
    const { id } = service.create('budget');
    const [a, b, c] = ['first *reply*', 'second *reply*', 'third *reply*'].map(
      (text) => service.append({ sessionId: id, role: 'assistant', text }).id,
    );
    // Room for two renderings (each weighs its text and its HTML, about 42 characters), not three.
    const replies = new RenderedReplies({ cacheChars: 100 });
    const rendered = (messageId: number) =>
      replies.attach(service.messages(id).filter((message) => message.id === messageId))[0]!.rendered;
    const ra = rendered(a!);
    const rb = rendered(b!);
    expect(rendered(a!)).toBe(ra);
    // a was used after b: b goes to make room for c.
    rendered(c!);
    expect(rendered(a!)).toBe(ra);
    const again = rendered(b!);
    expect(again).not.toBe(rb);
    expect(again).toEqual(rb);
  });
});
