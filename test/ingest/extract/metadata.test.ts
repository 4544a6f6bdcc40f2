import { describe, expect, it } from 'vitest';
import { extractItem } from '../../../src/ingest/extract/index.js';
import { CHECKSUM, RECEIVED, factOf, site } from './helpers.js';

/** Readability-style page metadata: the title, byline and excerpt rules, on small hand-written pages. */
const extractHtml = (html: string) =>
  extractItem({ type: 'page', id: 'p', url: 'https://shop.example/p', html, checksum: CHECKSUM }, site, {
    receivedAt: RECEIVED,
  });
const page = (head: string, body: string): string =>
  `<!DOCTYPE html><html><head>${head}</head><body>${body}</body></html>`;
const filler = 'Owls hunt mostly at night, and their soft feathers let them fly almost without a sound.';

describe('title from <title>', () => {
  it('drops a site name after an en dash or an em dash, as after " | " and " - "', () => {
    expect(
      extractHtml(page('<title>How to repair a bicycle chain – Example Garage</title>', `<p>${filler}</p>`))
        .entities[0]!.name,
    ).toBe('How to repair a bicycle chain');
    expect(
      extractHtml(page('<title>How to repair a bicycle chain — Example Garage</title>', `<p>${filler}</p>`))
        .entities[0]!.name,
    ).toBe('How to repair a bicycle chain');
  });

  it('reads a separator on its own line as one (whitespace collapsed first, as document.title does)', () => {
    expect(
      extractHtml(page('<title>\n  Ten things owls do at night\n\t\t| Bird Notes\n</title>', `<p>${filler}</p>`))
        .entities[0]!.name,
    ).toBe('Ten things owls do at night');
  });

  it('bug: a page with an empty <title> and several <h1>s was named by its url; the first <h1> shown outside boilerplate names it', () => {
    const body = `<article><h1>Ten things owls do at night</h1><p>${filler}</p></article><footer><h1>See fewer ads</h1></footer>`;
    expect(extractHtml(page('<title></title>', body)).entities[0]!.name).toBe('Ten things owls do at night');
    // Below the <title>: it names the page when it has a name.
    expect(extractHtml(page('<title>Owls and their nights</title>', body)).entities[0]!.name).toBe(
      'Owls and their nights',
    );
  });

  it('keeps a dash inside a word or without spaces around it', () => {
    expect(
      extractHtml(page('<title>Long-eared owls and short-eared owls compared</title>', `<p>${filler}</p>`)).entities[0]!
        .name,
    ).toBe('Long-eared owls and short-eared owls compared');
  });
});

describe('description from head metadata', () => {
  it('reads a doubly escaped numeric reference to no character (0, a surrogate, past U+10FFFF) as U+FFFD', () => {
    const c = extractHtml(
      page(
        '<meta name="description" content="Owls &amp;#x0; nest &amp;#xD800; in &amp;#1114112; trees &amp;#233;t&amp;#xE9;">',
        `<p>${filler}</p>`,
      ),
    );
    expect(factOf(c, 'description', 'seo_meta')?.value).toBe('Owls \uFFFD nest \uFFFD in \uFFFD trees été');
  });
});

describe('description from the first paragraph', () => {
  it('leaves out hidden text inside the paragraph (aria-hidden, hidden, display:none)', () => {
    const c = extractHtml(
      page(
        '<title>Owls at night in the forest</title>',
        `<article><p><span aria-hidden="true">[icon]</span>Owls hunt mostly at night, <span hidden>and by day</span>and their soft feathers let them fly <b style="display: none">loudly</b>almost without a sound.</p></article>`,
      ),
    );
    expect(factOf(c, 'description', 'text_extraction')?.value).toBe(filler);
  });

  it('skips the byline paragraph (the chunks keep it): the byline is page furniture, not the summary', () => {
    const c = extractHtml(
      page(
        '<title>Owls at night in the forest</title>',
        `<article><h1>Owls at night</h1><p class="byline author">Written by Jane Roe<br>\n Edited by John Doe</p><p>${filler}</p></article>`,
      ),
    );
    expect(factOf(c, 'description', 'text_extraction')?.value).toBe(filler);
    expect(factOf(c, 'author', 'text_extraction')?.value).toBe('Jane Roe');
    expect(c.chunks.map((chunk) => chunk.text).join(' ')).toContain('Edited by');
    // Nor the short line that holds the byline ("The Ledger | 04.05.2015 | By Jane Roe").
    const line =
      '<p class="signature">The Ledger | <time datetime="2015-05-04">04.05.2015 at 13:36</time> • Updated <time datetime="2015-05-05">05.05.2015 at 20:13</time> | By <span class="author">Jane Roe</span> (with John Doe and Ann Poe)</p>';
    const held = extractHtml(
      page(
        '<title>Owls at night in the forest</title>',
        `<article><h1>Owls at night</h1>${line}<p>${filler}</p></article>`,
      ),
    );
    expect(factOf(held, 'description', 'text_extraction')?.value).toBe(filler);
  });

  it('skips an ad slot: by its class (advert, ad, ads) or by its label alone ("Advertisement", "Anzeige")', () => {
    for (const slot of [
      '<p class="advertisement">Sponsored by Acme</p>',
      '<div class="ad"><p>Buy Acme kettles today at half price, while stocks last!</p></div>',
      '<p>Advertisement</p>',
      '<p>Anzeige</p>',
    ]) {
      const c = extractHtml(
        page(
          '<title>Owls at night in the forest</title>',
          `<article><h1>Owls at night</h1>${slot}<p>${filler}</p></article>`,
        ),
      );
      expect(factOf(c, 'description', 'text_extraction')?.value).toBe(filler);
    }
    // A class that merely contains the letters ("shadow", "header-add") is no ad.
    const c = extractHtml(
      page(
        '<title>Owls at night in the forest</title>',
        `<article><div class="loaded"><p>${filler}</p></div></article>`,
      ),
    );
    expect(factOf(c, 'description', 'text_extraction')?.value).toBe(filler);
  });

  it('reads a blank line in the markup as whitespace: only <br><br> ends a paragraph', () => {
    const c = extractHtml(
      page(
        '<title>Owls at night in the forest</title>',
        '<article><p>Owls hunt mostly at night,<br>\n\n      and their soft feathers let them fly almost without a sound.</p></article>',
      ),
    );
    expect(factOf(c, 'description', 'text_extraction')?.value).toBe(filler);
    const split = extractHtml(
      page(
        '<title>Owls at night in the forest</title>',
        `<article><div>${filler}<br><br>Their eyes are large and face forward, like ours, which gives them good depth perception.</div></article>`,
      ),
    );
    expect(factOf(split, 'description', 'text_extraction')?.value).toBe(filler);
  });
});

describe('description from a short loose-text <div>', () => {
  it("skips page furniture: a figure's caption, a credit, a short date line, a lone link", () => {
    const describe = (lead: string) =>
      extractHtml(
        page('<title>Owls at night in the forest</title>', `<article><h1>Owls</h1>${lead}<p>${filler}</p></article>`),
      ).entities[0]!.attributes.description;
    expect(describe('<figure><img src="/o.jpg"><figcaption><p>A barn owl at dusk.</p></figcaption></figure>')).toBe(
      filler,
    );
    expect(describe('<p class="wp-caption-text">A barn owl at dusk.</p>')).toBe(filler);
    expect(describe('<p>(All photos: Bird Notes staff)</p>')).toBe(filler);
    expect(describe('<p>图为一只猫头鹰。</p>')).toBe(filler);
    expect(
      describe('<p class="meta">Published <time datetime="2019-11-21">21 November 2019</time> · Tagged with owls</p>'),
    ).toBe(filler);
    expect(describe('<p><a href="/o.jpg"><b>View this image ›</b></a></p>')).toBe(filler);
    // A short first paragraph of text is the text.
    expect(describe('<p>Owls are <a href="/birds">birds</a> of the night.</p>')).toBe('Owls are birds of the night.');
  });

  it('takes a short <div> text when the content has no other paragraph', () => {
    const c = extractHtml(
      page(
        '<title>Owls at night in the forest</title>',
        '<main><section><div><div>Owls hunt mostly at night.</div></div></section></main>',
      ),
    );
    expect(factOf(c, 'description', 'text_extraction')?.value).toBe('Owls hunt mostly at night.');
  });
});

describe('site name', () => {
  const siteRef = { type: 'Organization', canonicalKey: 'shop.example' };
  const article = `<article itemscope itemtype="https://schema.org/Article"><h1 itemprop="headline">Owls at night</h1><div itemprop="publisher" itemscope itemtype="https://schema.org/Organization"><span itemprop="name">Bird Notes Media Group</span></div><p>${filler}</p></article>`;

  it('takes a microdata publisher name only when the head metadata declares no site name', () => {
    const declared = extractHtml(
      page('<title>Owls at night in the forest</title><meta property="og:site_name" content="Bird Notes">', article),
    );
    expect(factOf(declared, 'site_name', 'schema_org', siteRef)).toBeUndefined();
    expect(factOf(declared, 'site_name', 'seo_meta', siteRef)?.value).toBe('Bird Notes');
    const silent = extractHtml(page('<title>Owls at night in the forest</title>', article));
    expect(factOf(silent, 'site_name', 'schema_org', siteRef)?.value).toBe('Bird Notes Media Group');
  });
});
