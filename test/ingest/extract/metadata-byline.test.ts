import { describe, expect, it } from 'vitest';
import type { ItemContribution } from '../../../src/ingest/extract/contribution.js';
import { extractItem } from '../../../src/ingest/extract/index.js';
import { cleanByline } from '../../../src/ingest/extract/byline.js';
import { CHECKSUM, RECEIVED, factsOf, relsOf, site } from './helpers.js';

/**
 * The page's author as the graph store would keep it: the survivor
 * of the author candidates (provenance, then confidence).
 */
const RANK: Record<string, number> = { cms_field: 0, schema_org: 1, seo_meta: 2, text_extraction: 3 };
function authorOf(c: ItemContribution): unknown {
  const best = [...factsOf(c, 'author')].sort(
    (a, b) => RANK[a.provenanceMethod]! - RANK[b.provenanceMethod]! || b.confidence - a.confidence,
  )[0];
  return best === undefined ? null : (best.display ?? best.value);
}
const page = (head: string, body: string): ItemContribution =>
  extractItem(
    {
      type: 'page',
      id: 'p',
      url: 'https://shop.example/owls',
      html: `<!DOCTYPE html><html><head><title>Owls at night in the forest</title>${head}</head><body>${body}</body></html>`,
      checksum: CHECKSUM,
    },
    site,
    { receivedAt: RECEIVED },
  );
const author = (head: string, body: string): unknown => authorOf(page(head, body));
const text = '<p>Owls hunt mostly at night, and their soft feathers let them fly almost without a sound.</p>';

describe('byline elements', () => {
  it('reads a rel=author link, a .byline, an .author and a .by element', () => {
    expect(
      author(
        '',
        `<article><h1>Owls</h1><p>Words: <a rel="author" href="/people/jane">Jane Roe</a></p>${text}</article>`,
      ),
    ).toBe('Jane Roe');
    expect(author('', `<article><h1>Owls</h1><p class="byline">By Jane Roe</p>${text}</article>`)).toBe('Jane Roe');
    expect(author('', `<article><h1>Owls</h1><div class="post-author">Jane Roe</div>${text}</article>`)).toBe(
      'Jane Roe',
    );
    expect(author('', `<article><h1>Owls</h1><span class="by">by Jane Roe</span>${text}</article>`)).toBe('Jane Roe');
  });

  it('reads the test and component names of component-built pages (data-testid, data-component, data-qa)', () => {
    expect(
      author(
        '',
        `<article><h1>Owls</h1><div class="x1f9" data-testid="byline"><span>By Jane Roe</span></div>${text}</article>`,
      ),
    ).toBe('Jane Roe');
    expect(
      author(
        '',
        `<article><h1>Owls</h1><div class="c7" data-component="byline-block"><div><span>Jane Roe</span></div><div>Technology reporter</div></div>${text}</article>`,
      ),
    ).toBe('Jane Roe');
    expect(
      author(
        '',
        `<article><h1>Owls</h1><div data-qa="story-meta">By <a data-qa="author-name" href="/p/jane">Jane Roe</a>, <span>Staff</span></div>${text}</article>`,
      ),
    ).toBe('Jane Roe');
  });

  it('does not read a class that merely contains the letters "by" as a byline', () => {
    expect(author('', `<article><h1>Owls</h1><p class="baby-owls">Jane Roe</p>${text}</article>`)).toBeNull();
    // Nor "authoring", "authority", "authorization": an RFC's reference anchor names no one.
    expect(
      author(
        '',
        `<article><h1>Owls</h1>${text}<p>As per [<a id="ref-AUTHORING" href="#ref-AUTHORING">AUTHORING</a>].</p></article>`,
      ),
    ).toBeNull();
    expect(
      author('', `<article><h1>Owls</h1><div class="authority-badge">Trusted Source</div>${text}</article>`),
    ).toBeNull();
  });

  it('takes the [itemprop=name] inside a byline, as Readability does', () => {
    expect(
      author(
        '',
        `<article><h1>Owls</h1><div class="byline">Posted by <span itemprop="name">Jane Roe</span> in Birds</div>${text}</article>`,
      ),
    ).toBe('Jane Roe');
  });

  it('takes the one element marked as the author inside a byline and leaves the role beside it', () => {
    const body = `<article><h1>Owls</h1><div class="byline"><img class="byline__avatar" alt=""><a class="byline__author" href="/jane">Jane Roe</a><div class="byline__title">Bird Notes Staff Reporter</div></div>${text}</article>`;
    expect(author('', body)).toBe('Jane Roe');
  });

  it('skips a byline that is only a dateline and reads the next one', () => {
    const body = `<article><h1>Owls</h1><div class="article-dateline"><time>April 28, 2019 at 6:01 am</time> Updated <time>April 29, 2019 at 3:33 pm</time></div><div class="article-byline">By <a rel="author" href="/jane">Jane Roe</a></div>${text}</article>`;
    expect(author('', body)).toBe('Jane Roe');
    expect(
      author(
        '',
        `<article><h1>Owls</h1><div class="byline"><em>Last Updated:</em> January 7, 2025</div>${text}</article>`,
      ),
    ).toBeNull();
  });

  it('keeps every author of a byline that links several, as written, each one value and one Person', () => {
    const body = `<article><h1>Owls</h1><p class="byline">By <a rel="author" href="/jane">Jane Roe</a> and <a rel="author" href="/john">John Doe</a></p>${text}</article>`;
    expect(author('', body)).toBe('Jane Roe and John Doe');
    const c = page('', body);
    expect(factsOf(c, 'author').map((f) => f.value)).toEqual([{ values: ['Jane Roe', 'John Doe'] }]);
    expect(
      c.entities
        .filter((e) => e.type === 'Person')
        .map((e) => e.name)
        .sort(),
    ).toEqual(['Jane Roe', 'John Doe']);
    expect(
      relsOf(c, 'authored_by')
        .map((r) => r.to)
        .sort(),
    ).toEqual(['Person:https://shop.example/jane', 'Person:https://shop.example/john']);
  });

  it('never takes a commenter or a related story\'s author, but reads a byline in a "content has-sidebar" wrapper', () => {
    const comments = `<article><h1>Owls</h1><div class="byline">March 3, 2024</div>${text}</article><section id="comments"><div class="comment"><span class="comment-author">Rick Reader</span> said: lovely</div></section><ul class="related-posts"><li><span class="author">Other Writer</span></li></ul>`;
    expect(author('', comments)).toBeNull();
    expect(
      author(
        '',
        `<div class="content has-sidebar"><article><h1>Owls</h1><p class="byline">By Jane Roe</p>${text}</article></div>`,
      ),
    ).toBe('Jane Roe');
  });

  it('ignores a hidden byline and one of 100 characters or more', () => {
    expect(author('', `<article><h1>Owls</h1><p class="byline" hidden>By Jane Roe</p>${text}</article>`)).toBeNull();
    expect(
      author(
        '',
        `<article><h1>Owls</h1><p class="byline">By Jane Roe, who has watched owls in the beech woods behind her house every night for twenty years</p>${text}</article>`,
      ),
    ).toBeNull();
  });

  it('reads co-authors each marked in a byline, and keeps a date written right after a name out of it', () => {
    const body = `<article><h1>Owls</h1><div class="byline"><span>By <a class="byline__author" href="/sam">Sam Keller</a> and <a class="byline__author" href="/rita">Rita Moss</a></span><time datetime="2024-04-04">April 4, 2024</time></div>${text}</article>`;
    expect(author('', body)).toBe('Sam Keller and Rita Moss');
    expect(
      page('', body)
        .entities.filter((e) => e.type === 'Person')
        .map((e) => e.name)
        .sort(),
    ).toEqual(['Rita Moss', 'Sam Keller']);
    expect(
      author('', `<article><h1>Owls</h1><p class="byline">By Jane Roe<time>April 4, 2024</time></p>${text}</article>`),
    ).toBe('Jane Roe');
  });

  it('reads Drupal\'s "Submitted by ... on ..." line, and never a "submitted" element that names no one by', () => {
    const drupal = `<article><h1>Owls</h1><div class="node__submitted">Submitted by <span class="field--name-uid"><span>Ellen Brooks</span></span> on <span>Tue, 03/05/2024 - 10:00</span></div>${text}</article>`;
    expect(author('', drupal)).toBe('Ellen Brooks');
    expect(
      author(
        '',
        `<article><h1>Owls</h1><p class="form-submitted">Thank you, your message was sent</p>${text}</article>`,
      ),
    ).toBeNull();
  });

  it('reads an unmarked "By ..." line right under the title, at a lower confidence than a marked byline', () => {
    const plain = `<main><h1>Owls</h1><p class="meta">By Joan Whitaker · December 2, 2023</p>${text}</main>`;
    expect(author('', plain)).toBe('Joan Whitaker');
    expect(factsOf(page('', plain), 'author')[0]!.confidence).toBe(0.5);
    expect(
      author(
        '',
        `<main><header class="post-head"><h1>Owls</h1><p class="kicker">Birds</p></header><div>by Joan Whitaker</div>${text}</main>`,
      ),
    ).toBe('Joan Whitaker');
    expect(
      author(
        '',
        `<main><h1>Owls</h1><p class="meta">By Joan Whitaker</p>${text}</main><p class="byline">By Jane Roe</p>`,
      ),
    ).toBe('Jane Roe');
  });

  it('reads an unmarked "Author Jane Roe" line under the title (a label beside the name), in other languages with a colon', () => {
    expect(
      author(
        '',
        `<article><h1>Owls</h1><div class="meta"><span class="label">Author</span> <span class="value">Jane Roe</span></div>${text}</article>`,
      ),
    ).toBe('Jane Roe');
    expect(author('', `<article><h1>Owls</h1><p>Autor: Klaus Meier</p>${text}</article>`)).toBe('Klaus Meier');
    expect(author('', `<article><h1>Owls</h1><p>Authorized dealers only</p>${text}</article>`)).toBeNull();
  });

  it('reads an unmarked "Posted on <date> by ..." line under the title, and never one whose start is no date', () => {
    expect(
      author(
        '',
        `<article><h1>Owls</h1><div class="entry-meta">Posted on March 3, 2024 by Jane Roe</div>${text}</article>`,
      ),
    ).toBe('Jane Roe');
    expect(
      author(
        '',
        `<article><h1>Owls</h1><div class="entry-meta">Published 2024-03-03 by Jane Roe</div>${text}</article>`,
      ),
    ).toBe('Jane Roe');
    expect(
      author('', `<article><h1>Owls</h1><div class="entry-meta">Posted on Tuesday by the river</div>${text}</article>`),
    ).toBeNull();
    expect(
      author('', `<article><h1>Owls</h1><div class="dek">Owls are followed by Crows</div>${text}</article>`),
    ).toBeNull();
  });

  it('reads an unmarked dated line in other languages: "Veröffentlicht am 3. März 2024 von ...", "Publié le 3 mars 2024 par ..."', () => {
    expect(
      author(
        '',
        `<article><h1>Owls</h1><div class="meta">Veröffentlicht am 3. März 2024 von Klaus Meier</div>${text}</article>`,
      ),
    ).toBe('Klaus Meier');
    expect(
      author(
        '',
        `<article><h1>Owls</h1><div class="meta">Publié le 3 mars 2024 par Claire Dubois</div>${text}</article>`,
      ),
    ).toBe('Claire Dubois');
  });

  it('reads byline classes and unmarked lines in other languages: autor, auteur, autore; "Von ...", "Por ..."', () => {
    expect(author('', `<article><h1>Owls</h1><p class="autor">Von Klaus Meier</p>${text}</article>`)).toBe(
      'Klaus Meier',
    );
    expect(
      author(
        '',
        `<article><h1>Owls</h1><div class="entry-meta">Publié le 15 septembre 2023 par <span class="auteur"><a href="/auteur/claire/">Claire Dubois</a></span></div>${text}</article>`,
      ),
    ).toBe('Claire Dubois');
    expect(author('', `<article><h1>Owls</h1><span class="nome-autore">Marco Rossi</span>${text}</article>`)).toBe(
      'Marco Rossi',
    );
    expect(author('', `<main><h1>Owls</h1><p>Von Klaus Meier</p>${text}</main>`)).toBe('Klaus Meier');
    expect(author('', `<main><h1>Owls</h1><p>Por María López</p>${text}</main>`)).toBe('María López');
  });

  it("reads a link to an author's page before the body text when nothing marks a byline, keyed by that page", () => {
    const body = `<article><h1>Owls</h1><div class="flex gap-2 text-sm"><a class="font-medium" href="/authors/jane-roe">Jane Roe</a><span>·</span><time datetime="2024-04-04">April 4</time></div>${text}</article>`;
    expect(author('', body)).toBe('Jane Roe');
    expect(relsOf(page('', body), 'authored_by').map((r) => r.to)).toEqual([
      'Person:https://shop.example/authors/jane-roe',
    ]);
    expect(
      author(
        '',
        `<article><h1>Owls</h1><p>Posted by <a href="https://shop.example/by/sam-keller?ref=top">Sam Keller</a></p>${text}</article>`,
      ),
    ).toBe('Sam Keller');
    // A news site's editors' pages, after an avatar link that holds no text.
    expect(
      author(
        '',
        `<article><h1>Owls</h1><a href="/about/editors/jane-roe/"><img src="/j.jpg"></a><a class="th-meta" href="/about/editors/jane-roe/">Jane Roe</a>${text}</article>`,
      ),
    ).toBe('Jane Roe');
  });

  it('never takes an author link after the body text, in the navigation, or one whose text is no full name', () => {
    expect(
      author(
        '',
        `<article><h1>Owls</h1>${text}<ul class="more"><li><a href="/author/jane-roe">Jane Roe</a></li></ul></article>`,
      ),
    ).toBeNull();
    expect(
      author('', `<nav><a href="/people/jane-roe">Jane Roe</a></nav><article><h1>Owls</h1>${text}</article>`),
    ).toBeNull();
    expect(
      author('', `<article><h1>Owls</h1><a href="/author/jane-roe">Read more stories</a>${text}</article>`),
    ).toBeNull();
    // A list of posts, each by someone: the page has no one author.
    const post = (title: string, who: string, slug: string) =>
      `<article><h2>${title}</h2><span>by <a href="/author/${slug}">${who}</a></span>${text}</article>`;
    expect(
      author(
        '',
        `<main><h1>Bird Notes</h1>${post('Owls', 'Jane Roe', 'jane-roe')}${post('Larks', 'John Doe', 'john-doe')}</main>`,
      ),
    ).toBeNull();
  });

  it('never takes a line under the title that names no one: lower case after "By", a sentence, a line after the body text', () => {
    expect(author('', `<main><h1>Owls</h1><p>By Train to Paris and Back</p>${text}</main>`)).toBeNull();
    expect(author('', `<main><h1>Owls</h1><p>Von Berlin nach Hamburg</p>${text}</main>`)).toBeNull();
    expect(
      author('', `<main><h1>Owls</h1><p>By clicking subscribe you agree to our terms</p>${text}</main>`),
    ).toBeNull();
    expect(
      author('', `<main><h1>Owls</h1><p>By Sunday The Whole Town Will Know About The Owls</p>${text}</main>`),
    ).toBeNull();
    expect(author('', `<main><h1>Owls</h1>${text}<p>By Joan Whitaker</p></main>`)).toBeNull();
    expect(author('', `<main><h1>Owls</h1><p hidden>By Joan Whitaker</p>${text}</main>`)).toBeNull();
  });

  it('counts only when no structured source names an author', () => {
    expect(
      author(
        '<meta name="author" content="John Doe">',
        `<article><h1>Owls</h1><p class="byline">By Jane Roe</p>${text}</article>`,
      ),
    ).toBe('John Doe');
  });

  it("under a declared author that is the publication, still names the byline's people, below the declared author", () => {
    const ld =
      '<script type="application/ld+json">{"@context":"https://schema.org","@type":"NewsArticle","headline":"Owls","author":{"@type":"Organization","name":"The Ledger"}}</script>';
    const c = page(ld, `<article><h1>Owls</h1><p class="byline">By Jane Roe</p>${text}</article>`);
    expect(authorOf(c)).toBe('The Ledger');
    expect(factsOf(c, 'author').map((f) => [f.value, f.provenanceMethod])).toEqual([
      ['The Ledger', 'schema_org'],
      ['Jane Roe', 'text_extraction'],
    ]);
    expect(c.entities.filter((e) => e.type === 'Person').map((e) => e.name)).toEqual(['Jane Roe']);
    expect(
      relsOf(c, 'authored_by')
        .map((r) => r.to)
        .sort(),
    ).toEqual(['Organization:the ledger', 'Person:jane roe']);
    // A byline naming the publication again names no person.
    const again = page(ld, `<article><h1>Owls</h1><p class="byline">By The Ledger</p>${text}</article>`);
    expect(again.entities.filter((e) => e.type === 'Person')).toEqual([]);
  });
});

describe('cleaning a byline', () => {
  it('drops "By" and its labels, in any case and in other languages', () => {
    expect(cleanByline('BY JANE ROE')).toBe('JANE ROE');
    expect(cleanByline('By: Jane Roe')).toBe('Jane Roe');
    expect(cleanByline('Written by Jane Roe')).toBe('Jane Roe');
    expect(cleanByline('Author: Jane Roe')).toBe('Jane Roe');
    expect(cleanByline('Opinion by Jane Roe')).toBe('Jane Roe');
    expect(cleanByline('Analysis by Jane Roe and John Doe')).toBe('Jane Roe and John Doe');
    expect(cleanByline('Words: Jane Roe')).toBe('Jane Roe');
    expect(cleanByline('Автор: Иван Петров')).toBe('Иван Петров');
    expect(cleanByline('作者：李明')).toBe('李明');
    expect(cleanByline('文・山田太郎')).toBe('山田太郎');
    expect(cleanByline('بقلم: أحمد علي')).toBe('أحمد علي');
    expect(cleanByline('ジョン・スミス')).toBe('ジョン・スミス');
    expect(cleanByline('Von Max Mustermann')).toBe('Max Mustermann');
    expect(cleanByline('par Marie Curie')).toBe('Marie Curie');
  });

  it('drops a dash left at either end of a part ("Nicolas Perriault —")', () => {
    expect(cleanByline('Nicolas Perriault —')).toBe('Nicolas Perriault');
    expect(cleanByline('– Jane Roe')).toBe('Jane Roe');
  });

  it('drops an English "Author" label written without its colon before a capitalised name', () => {
    expect(cleanByline('Author Jane Roe')).toBe('Jane Roe');
    expect(cleanByline('Authors Jane Roe and Sam Lee')).toBe('Jane Roe and Sam Lee');
    expect(cleanByline('Authorized Dealer')).toBe('Authorized Dealer');
  });

  it('drops e-mail addresses and handles beside the name, and keeps a handle that is all there is', () => {
    expect(cleanByline('By Jane Roe (jane.roe@example.com) @janeroe')).toBe('Jane Roe');
    expect(cleanByline('jane@example.com (Jane Roe)')).toBe('Jane Roe');
    expect(cleanByline('Jane Roe, jane@example.com')).toBe('Jane Roe');
    expect(cleanByline('@janeroe')).toBe('@janeroe');
  });

  it("drops a reporter's role written after the name in Korean and Japanese, or before it in Chinese", () => {
    expect(cleanByline('홍길동 기자 hong@example.com')).toBe('홍길동');
    expect(cleanByline('김철수 특파원')).toBe('김철수');
    expect(cleanByline('山田太郎 記者')).toBe('山田太郎');
    expect(cleanByline('本报记者 张三')).toBe('张三');
  });

  it('cuts dates written in German, French, Spanish, Italian, Portuguese and Dutch, and the word before them', () => {
    expect(cleanByline('Von Klaus Meier, 3. März 2024')).toBe('Klaus Meier');
    expect(cleanByline('Von Klaus Meier am 3. März 2024')).toBe('Klaus Meier');
    expect(cleanByline('Par Marie Curie, le 1er mars 2024')).toBe('Marie Curie');
    expect(cleanByline('Por Juan Pérez el 3 de marzo de 2024')).toBe('Juan Pérez');
    expect(cleanByline('Di Marco Rossi, 3 marzo 2024')).toBe('Marco Rossi');
    expect(cleanByline('Por Ana Silva, 3 de março de 2024')).toBe('Ana Silva');
    expect(cleanByline('Door Jan de Vries, 3 maart 2024')).toBe('Jan de Vries');
    expect(cleanByline('Veröffentlicht am 3. März 2024 von Klaus Meier')).toBe('Klaus Meier');
    // A month's name is a date only beside a number; a capitalised article is a name's.
    expect(cleanByline('Mars Johnson')).toBe('Mars Johnson');
    expect(cleanByline('Jean-Marie Le Pen')).toBe('Jean-Marie Le Pen');
  });

  it('keeps names that begin like a label: Byron, Von Miller, Di Stefano, April, June', () => {
    expect(cleanByline('Byron Katie')).toBe('Byron Katie');
    expect(cleanByline('Von Miller')).toBe('Von Miller');
    expect(cleanByline('Di Stefano')).toBe('Di Stefano');
    expect(cleanByline('By April Smith on April 3, 2024')).toBe('April Smith');
    expect(cleanByline('June Carter')).toBe('June Carter');
  });

  it('cuts dates, times and relative times out of the line', () => {
    expect(cleanByline('By Jane Roe | March 3, 2024 at 6:01 am')).toBe('Jane Roe');
    expect(cleanByline('Jane Roe • 3 hours ago • 5 min read')).toBe('Jane Roe');
    expect(cleanByline('Posted on 2024-03-03 by Jane Roe')).toBe('Jane Roe');
    expect(cleanByline('Jane Roe, 03/03/2024 18:30 CET')).toBe('Jane Roe');
    expect(cleanByline('Published Monday, 3 March 2024')).toBeNull();
    expect(cleanByline('Submitted by Ellen Brooks on Tue, 03/05/2024 - 10:00')).toBe('Ellen Brooks');
    expect(cleanByline('Sun Li')).toBe('Sun Li');
  });

  it('cuts roles, credentials, news agencies and other credits, and keeps Jr. and a "Last, First" name', () => {
    expect(cleanByline('By Jane Roe | Staff Writer')).toBe('Jane Roe');
    expect(cleanByline('Jane Roe, Senior Correspondent')).toBe('Jane Roe');
    expect(cleanByline('Jane Roe - Editor at Large')).toBe('Jane Roe');
    expect(cleanByline('Brenda Roe, MA')).toBe('Brenda Roe');
    expect(cleanByline('By JANE ROE, Associated Press')).toBe('JANE ROE');
    expect(cleanByline('Jane Roe | Reuters')).toBe('Jane Roe');
    expect(cleanByline('By Jane Roe, CNN')).toBe('Jane Roe');
    expect(cleanByline('By Jane Roe, The Washington Post')).toBe('Jane Roe');
    expect(cleanByline('Jane Roe, Special to The Times')).toBe('Jane Roe');
    expect(cleanByline('By Jane Roe for The Guardian')).toBe('Jane Roe');
    expect(cleanByline('Jane Roe and John Doe for Reuters')).toBe('Jane Roe and John Doe');
    expect(cleanByline('Paws for Thought')).toBe('Paws for Thought');
    expect(cleanByline('By Herald Staff')).toBeNull();
    expect(cleanByline('JANE ROE, AP')).toBe('JANE ROE');
    expect(cleanByline('Jane Roe, MD, PhD')).toBe('Jane Roe');
    expect(cleanByline('Written by Jane Roe Edited by John Doe')).toBe('Jane Roe');
    expect(cleanByline('By Jane Roe. Photos by John Doe')).toBe('Jane Roe');
    expect(cleanByline('Martin Luther King, Jr.')).toBe('Martin Luther King, Jr.');
    expect(cleanByline('By John Q. Public.')).toBe('John Q. Public');
    expect(cleanByline('By John Q.')).toBe('John Q.');
    expect(cleanByline('Roe, Jane')).toBe('Roe, Jane');
    expect(cleanByline('Jane Roe and John Doe')).toBe('Jane Roe and John Doe');
  });

  it('names nobody for a url, a role alone or an empty line', () => {
    expect(cleanByline('https://shop.example/people/jane')).toBeNull();
    expect(cleanByline('Seattle Times business reporter')).toBeNull();
    expect(cleanByline(' By ')).toBeNull();
  });
});

describe('authors in head metadata', () => {
  it('cleans <meta name=author> like a byline', () => {
    expect(author('<meta name="author" content="By Jane Roe | Staff Writer">', text)).toBe('Jane Roe');
  });

  it("reads the New York Times' byl tag, one Person per name", () => {
    const c = page('<meta name="byl" content="By Jane Roe and Sam Lee">', text);
    expect(authorOf(c)).toBe('Jane Roe and Sam Lee');
    expect(
      c.entities
        .filter((e) => e.type === 'Person')
        .map((e) => e.name)
        .sort(),
    ).toEqual(['Jane Roe', 'Sam Lee']);
  });

  it("reads a name in book:author (and the older books:author) as an author; a url there is the author's page, never a name", () => {
    expect(author('<meta property="books:author" content="QuillWriter">', text)).toBe('QuillWriter');
    expect(
      author('<meta property="book:author" content="Jane Roe"><meta property="book:author" content="Sam Lee">', text),
    ).toBe('Jane Roe, Sam Lee');
    const c = page('<meta property="book:author" content="https://shop.example/authors/jane-roe">', text);
    expect(authorOf(c)).toBeNull();
    expect(factsOf(c, 'author_url').map((f) => f.value)).toEqual(['https://shop.example/authors/jane-roe']);
  });

  it('keeps a declared list of authors longer than a byline line', () => {
    const names = 'Jane Roe, John Doe, Richard Miles, Anna Berg, Peter Lund, Maria Costa, Tomas Novak, Ines Ferreira';
    expect(author(`<meta name="author" content="${names}">`, text)).toBe(names);
  });

  it('reads article:author when it is a name, never when it is a url', () => {
    expect(author('<meta property="article:author" content="Jane Roe">', text)).toBe('Jane Roe');
    expect(author('<meta property="article:author" content="https://facebook.example/jane.roe">', text)).toBeNull();
  });

  it('names every author of a repeated article:author tag, skipping urls', () => {
    const head =
      '<meta property="article:author" content="Jane Roe"><meta property="article:author" content="https://shop.example/john"><meta property="article:author" content="John Doe">';
    expect(author(head, text)).toBe('Jane Roe, John Doe');
    expect(factsOf(page(head, text), 'author').map((f) => f.value)).toEqual([{ values: ['Jane Roe', 'John Doe'] }]);
  });

  it('keeps the keywords of a meta tag as one fact of {"values": [...]}, as JSON-LD keywords', () => {
    expect(
      factsOf(page('<meta name="keywords" content="owls, night ,birds">', text), 'keywords').map((f) => [
        f.value,
        f.display,
      ]),
    ).toEqual([[{ values: ['owls', 'night', 'birds'] }, 'owls, night, birds']]);
  });

  it('makes one Person of each author a meta tag lists, and one of a name written surname first', () => {
    const persons = (head: string) =>
      page(head, text)
        .entities.filter((e) => e.type === 'Person')
        .map((e) => e.name)
        .sort();
    expect(persons('<meta name="author" content="Jane Roe and John Doe">')).toEqual(['Jane Roe', 'John Doe']);
    expect(persons('<meta name="author" content="Jane Roe, John Doe">')).toEqual(['Jane Roe', 'John Doe']);
    expect(persons('<meta name="author" content="Roe, Jane">')).toEqual(['Roe, Jane']);
  });

  it("prefers dc:creator, then author, then parsely-author, then article:author (Readability's order)", () => {
    expect(
      author(
        '<meta property="article:author" content="Ann Article"><meta name="parsely-author" content="Pat Parsely"><meta name="author" content="Amy Author"><meta name="dc.creator" content="Dee Creator">',
        text,
      ),
    ).toBe('Dee Creator');
    expect(
      author(
        '<meta property="article:author" content="Ann Article"><meta name="parsely-author" content="Pat Parsely"><meta name="author" content="Amy Author">',
        text,
      ),
    ).toBe('Amy Author');
    expect(
      author(
        '<meta property="article:author" content="Ann Article"><meta name="parsely-author" content="Pat Parsely">',
        text,
      ),
    ).toBe('Pat Parsely');
  });
});

describe('authors in structured data', () => {
  const ld = (value: unknown): string => `<script type="application/ld+json">${JSON.stringify(value)}</script>`;

  it('joins the names of a JSON-LD author array with ", " (as Readability does)', () => {
    expect(
      author(
        ld({
          '@context': 'https://schema.org',
          '@type': 'NewsArticle',
          headline: 'Owls',
          author: [
            { '@type': 'Person', name: 'Jane Roe' },
            { '@type': 'Person', name: 'John Doe' },
          ],
        }),
        text,
      ),
    ).toBe('Jane Roe, John Doe');
  });

  it('resolves authors given as @id references in a @graph', () => {
    const graph = {
      '@context': 'https://schema.org',
      '@graph': [
        {
          '@type': 'Article',
          '@id': 'https://shop.example/owls#article',
          headline: 'Owls',
          author: [{ '@id': 'https://shop.example/#jane' }, { '@id': 'https://shop.example/#john' }],
        },
        { '@type': 'Person', '@id': 'https://shop.example/#jane', name: 'Jane Roe' },
        { '@type': 'Person', '@id': 'https://shop.example/#john', name: 'John Doe' },
      ],
    };
    expect(author(ld(graph), text)).toBe('Jane Roe, John Doe');
  });

  it('prefers the JSON-LD author to the head metadata and to the byline', () => {
    expect(
      author(
        `${ld({ '@context': 'https://schema.org', '@type': 'BlogPosting', headline: 'Owls', author: { '@type': 'Person', name: 'Jane Roe' } })}<meta name="author" content="Bird Notes">`,
        `<p class="byline">By John Doe</p>${text}`,
      ),
    ).toBe('Jane Roe');
  });

  it('reads a microdata author by its nested itemprop=name', () => {
    const body = `<article itemscope itemtype="https://schema.org/Article"><h1 itemprop="headline">Owls</h1><p>By <span itemprop="author" itemscope itemtype="https://schema.org/Person"><a href="/jane" itemprop="url"><span itemprop="name">Jane Roe</span></a></span></p>${text}</article>`;
    expect(author('', body)).toBe('Jane Roe');
  });
});
