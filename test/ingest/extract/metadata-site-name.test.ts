import { describe, expect, it } from 'vitest';
import type { ItemContribution } from '../../../src/ingest/extract/contribution.js';
import type { WebsiteInfo } from '../../../src/control/records/website-info.js';
import { extractItem } from '../../../src/ingest/extract/index.js';
import { cleanSiteName, siteNameFromTitle } from '../../../src/ingest/extract/site-name.js';
import { CHECKSUM, RECEIVED, factsOf } from './helpers.js';

/** A website whose brand differs from every name on the pages, so a site name can only come from the page. */
const site: WebsiteInfo = {
  websiteId: 'site-1',
  domain: 'birdnotes.example',
  brand: 'Configured Brand',
  defaultLanguage: 'en',
  plan: 'free',
  verification: { method: null, state: 'pending' },
  aliases: [],
};
const siteRef = { type: 'Organization', canonicalKey: 'birdnotes.example' };
const RANK: Record<string, number> = { cms_field: 0, schema_org: 1, seo_meta: 2, text_extraction: 3 };

/** The site name as the graph store would keep it: the survivor of the website's site_name candidates. */
function siteNameOf(c: ItemContribution): unknown {
  const best = [...factsOf(c, 'site_name', siteRef)].sort(
    (a, b) => RANK[a.provenanceMethod]! - RANK[b.provenanceMethod]! || b.confidence - a.confidence,
  )[0];
  return best === undefined ? null : best.value;
}
const text = '<p>Owls hunt mostly at night, and their soft feathers let them fly almost without a sound.</p>';
const siteName = (head: string, body = `<article>${text}</article>`): unknown =>
  siteNameOf(
    extractItem(
      {
        type: 'page',
        id: 'p',
        url: 'https://birdnotes.example/owls',
        html: `<!DOCTYPE html><html><head>${head}</head><body>${body}</body></html>`,
        checksum: CHECKSUM,
      },
      site,
      { receivedAt: RECEIVED },
    ),
  );
const ld = (value: unknown): string => `<script type="application/ld+json">${JSON.stringify(value)}</script>`;

describe('declared site names', () => {
  it('reads og:site_name, else application-name', () => {
    expect(siteName('<title>Owls at night</title><meta property="og:site_name" content="Bird Notes">')).toBe(
      'Bird Notes',
    );
    expect(siteName('<title>Owls at night</title><meta name="application-name" content="Bird Notes">')).toBe(
      'Bird Notes',
    );
    expect(
      siteName(
        '<title>Owls at night</title><meta name="application-name" content="Owl App"><meta property="og:site_name" content="Bird Notes">',
      ),
    ).toBe('Bird Notes');
  });

  it('drops a tagline after the name', () => {
    expect(
      siteName(
        '<title>Owls at night</title><meta name="application-name" content="Bird Notes - Daily news about birds">',
      ),
    ).toBe('Bird Notes');
    expect(
      siteName(
        '<title>Owls at night</title><meta property="og:site_name" content="Bird Notes | Watching birds since 1990">',
      ),
    ).toBe('Bird Notes');
  });

  it('keeps a name whose separator is part of it', () => {
    expect(cleanSiteName('Birds - Notes')).toBe('Birds - Notes');
    expect(cleanSiteName('AT&T')).toBe('AT&T');
  });

  it('prefers og:site_name to a JSON-LD WebSite name, which counts where the head declares none (Readability reads no WebSite node)', () => {
    const website = ld({ '@context': 'https://schema.org', '@type': 'WebSite', name: 'Bird Notes Daily' });
    expect(siteName(`<title>Owls</title><meta property="og:site_name" content="Bird Notes">${website}`)).toBe(
      'Bird Notes',
    );
    expect(siteName(`<title>Owls</title>${website}`)).toBe('Bird Notes Daily');
  });

  it("prefers the JSON-LD publisher's name to og:site_name (Readability's order)", () => {
    const article = ld({
      '@context': 'https://schema.org',
      '@type': 'NewsArticle',
      headline: 'Owls at night',
      publisher: { '@type': 'Organization', name: 'Bird Notes Weekly' },
    });
    expect(siteName(`<title>Owls at night</title>${article}<meta property="og:site_name" content="Bird Notes">`)).toBe(
      'Bird Notes Weekly',
    );
    expect(siteName(`<title>Owls at night | Bird Notes</title>${article}`)).toBe('Bird Notes Weekly');
  });
});

describe('site name from the <title>', () => {
  it('takes the part after " | ", " - ", " – ", " — " and " · "', () => {
    for (const separator of ['|', '-', '\u2013', '\u2014', '\u00b7']) {
      expect(siteName(`<title>Ten things owls do at night ${separator} Bird Notes</title>`)).toBe('Bird Notes');
    }
  });

  it('takes the outer part when the title has several ("Title | Section | Site")', () => {
    expect(siteName('<title>Ten things owls do at night | Nature | Bird Notes</title>')).toBe('Bird Notes');
  });

  it('yields to a declared site name', () => {
    expect(
      siteName(
        '<title>Ten things owls do at night - Bird Notes Daily</title><meta property="og:site_name" content="Bird Notes">',
      ),
    ).toBe('Bird Notes');
  });

  it('wins over a microdata publisher, which is often the company behind the site', () => {
    const body = `<article itemscope itemtype="https://schema.org/Article"><h1 itemprop="headline">Ten things owls do at night</h1><div itemprop="publisher" itemscope itemtype="https://schema.org/Organization"><span itemprop="name">Bird Notes Media Group Ltd</span></div>${text}</article>`;
    expect(siteName('<title>Ten things owls do at night - Bird Notes</title>', body)).toBe('Bird Notes');
  });

  it("takes the part before the page's own title (og:title or the <h1>), a colon included", () => {
    expect(
      siteName(
        '<title>Bird Notes | Ten things owls do at night</title><meta property="og:title" content="Ten things owls do at night">',
      ),
    ).toBe('Bird Notes');
    expect(
      siteName(
        '<title>Bird Notes: Ten things owls do at night</title>',
        `<article><h1>Ten things owls do at night</h1>${text}</article>`,
      ),
    ).toBe('Bird Notes');
  });

  it('is not fooled by a logo <h1> that repeats the site name', () => {
    expect(
      siteName(
        '<title>Ten things owls do at night · Bird Notes</title>',
        `<h1>Bird Notes</h1><article><h1>Ten things owls do at night</h1>${text}</article>`,
      ),
    ).toBe('Bird Notes');
  });

  it('takes the first part when it names the host and the last does not', () => {
    expect(siteName('<title>BirdNotes | Ten things owls do at night</title>')).toBe('BirdNotes');
  });

  it('takes the first part of a hierarchical title ("Site » Section » Page")', () => {
    expect(siteName('<title>Bird Notes » Nature » Ten things owls do at night</title>')).toBe('Bird Notes');
  });

  it('reads the separators of CJK titles: an underscore between CJK characters, a full-width bar', () => {
    expect(siteName('<title>猫头鹰在夜里做的十件事_自然频道_鸟类笔记网</title>')).toBe('鸟类笔记网');
    expect(siteName('<title>フクロウが夜にする10のこと｜鳥ノート</title>')).toBe('鳥ノート');
    expect(siteNameFromTitle('snake_case_names explained', [], null)).toBeNull();
  });

  it('finds none without a separator, nor in a part that is a page word, a number or too long', () => {
    expect(siteName('<title>Ten things owls do at night</title>')).toBeNull();
    expect(siteName('<title>Ten things owls do at night: a field guide</title>')).toBeNull();
    expect(siteName('<title>Ten things owls do at night | Home</title>')).toBeNull();
    expect(siteName('<title>Ten things owls do at night - Page 2</title>')).toBeNull();
    expect(siteName('<title>Ten things owls do at night - 2024</title>')).toBeNull();
    expect(siteName('<title>Owls - what the birds of the night do while we sleep and why</title>')).toBeNull();
  });

  it("finds none in a tagline after a home page's name, and keeps names with short lower-case words", () => {
    expect(siteName('<title>Widgetry - Fast widgets for Node</title>', '<h1>Widgetry</h1>')).toBeNull();
    expect(siteName('<title>Acme | The best kettles in town</title>')).toBeNull();
    expect(siteName('<title>Recette de la tarte - Cuisine de Mamie</title>')).toBe('Cuisine de Mamie');
    expect(siteName('<title>Backend Engineer - Careers at Loop</title>')).toBe('Careers at Loop');
    expect(siteName('<title>Owls at night | The Bird Notes Weekly</title>')).toBe('The Bird Notes Weekly');
    // A word for the kind of site is no tagline (Sphinx titles its pages "Page — Project 2.3 documentation").
    expect(siteName('<title>Installation — Owlwatch 2.31.0 documentation</title>')).toBe(
      'Owlwatch 2.31.0 documentation',
    );
    expect(siteName('<title>Owls at night | Owlwatch help center</title>')).toBe('Owlwatch help center');
  });

  it("finds none when the part is glued into an identifier of the rest (the page's subject, not its site)", () => {
    expect(siteName('<title>draft-roe-owlwatch-04 - OwlWatch</title>')).toBeNull();
    expect(siteName('<title>Why Bird Notes readers love owls - Bird Notes</title>')).toBe('Bird Notes');
  });
});

describe('site name from the logo that links home', () => {
  const logo = (href: string, alt: string) =>
    `<header><a href="${href}"><span><img src="/img/masthead.png" alt="${alt}"></span></a></header><article>${text}</article>`;

  it('a page that declares no name and whose title has no site part: the logo\'s alt text without "logo" and its tagline', () => {
    expect(siteName('<title>Owls at night</title>', logo('/', 'Bird Notes logo'))).toBe('Bird Notes');
    expect(
      siteName(
        '<title>Owls at night</title>',
        logo('https://birdnotes.example/www/default.htm', 'Bird Notes: Better birding. Better days.'),
      ),
    ).toBe('Bird Notes');
  });

  it("never over a declared name or the title's site part", () => {
    expect(
      siteName(
        '<title>Owls at night</title><meta property="og:site_name" content="Declared Notes">',
        logo('/', 'Bird Notes'),
      ),
    ).toBe('Declared Notes');
    expect(siteName('<title>Owls at night | Title Notes</title>', logo('/', 'Bird Notes'))).toBe('Title Notes');
  });

  it('no name: a link home to another website, an image file name, a page word, a link that is not home', () => {
    expect(siteName('<title>Owls at night</title>', logo('https://foundation.example/', 'Bird Foundation'))).toBe(null);
    expect(siteName('<title>Owls at night</title>', logo('/', 'masthead-logo.png'))).toBe(null);
    expect(siteName('<title>Owls at night</title>', logo('/', 'Home'))).toBe(null);
    expect(siteName('<title>Owls at night</title>', logo('/owls/barn-owl', 'Barn Owl'))).toBe(null);
  });
});

describe('site name from a text logo that links home', () => {
  const header = (links: string) => `<header>${links}</header><article><h1>Owls at night</h1>${text}</article>`;

  it('the text of the first link to the site\'s root, past "Home" and menu links', () => {
    expect(siteName('<title>Owls at night</title>', header('<a href="/">Bird Notes</a>'))).toBe('Bird Notes');
    expect(
      siteName(
        '<title>Owls at night</title>',
        header(
          '<a href="https://birdnotes.example/">Home</a> <a class="site-title" href="https://birdnotes.example/"><span>Bird Notes</span></a>',
        ),
      ),
    ).toBe('Bird Notes');
  });

  it("never over a declared name, the title's site part or a logo's alt text", () => {
    expect(
      siteName(
        '<title>Owls at night</title><meta property="og:site_name" content="Declared Notes">',
        header('<a href="/">Bird Notes</a>'),
      ),
    ).toBe('Declared Notes');
    expect(siteName('<title>Owls at night | Title Notes</title>', header('<a href="/">Bird Notes</a>'))).toBe(
      'Title Notes',
    );
    expect(
      siteName(
        '<title>Owls at night</title>',
        header('<a href="/"><img src="/l.png" alt="Masthead Notes"></a><a href="/">Bird Notes</a>'),
      ),
    ).toBe('Masthead Notes');
  });

  it("no name: another website's root, an index page under a folder, a link holding an image, a sentence", () => {
    expect(
      siteName('<title>Owls at night</title>', header('<a href="https://foundation.example/">Bird Foundation</a>')),
    ).toBe(null);
    expect(siteName('<title>Owls at night</title>', header('<a href="/blog/index.html">Blog</a>'))).toBe(null);
    expect(siteName('<title>Owls at night</title>', header('<a href="/"><img src="/l.png"> Bird Notes</a>'))).toBe(
      null,
    );
    expect(
      siteName('<title>Owls at night</title>', header('<a href="/">Back to the front page of this little website</a>')),
    ).toBe(null);
    expect(siteName('<title>Owls at night</title>', header('<a href="/">EN</a> <a href="/">Logo</a>'))).toBe(null);
    expect(siteName('<title>Owls at night</title>', header('<a href="/">V8</a>'))).toBe('V8');
  });
});

describe("site name from the home page's own title", () => {
  const at = (url: string, head: string) =>
    siteNameOf(
      extractItem(
        {
          type: 'page',
          id: 'p',
          url,
          html: `<!DOCTYPE html><html><head>${head}</head><body><article>${text}</article></body></html>`,
          checksum: CHECKSUM,
        },
        site,
        { receivedAt: RECEIVED },
      ),
    );

  it('on the home page, the title or its first part names the site, without a greeting', () => {
    expect(at('https://birdnotes.example/', '<title>Bird Notes</title>')).toBe('Bird Notes');
    expect(at('https://birdnotes.example/', '<title>Bird Notes | Daily birding since 2009</title>')).toBe('Bird Notes');
    expect(at('https://birdnotes.example/index.html', '<title>Welcome to Bird Notes</title>')).toBe('Bird Notes');
  });

  it("on any page, a <title> that is the host's name (a page built by scripts keeps the site's title)", () => {
    expect(at('https://birdnotes.example/owls', '<title>Bird Notes</title>')).toBe('Bird Notes');
    expect(at('https://birdnotes.example/owls', '<title>Bird Notes Weekly</title>')).toBe(null);
  });

  it('never on another page, nor a page word or a tagline, nor over a declared name', () => {
    expect(at('https://birdnotes.example/owls', '<title>Owls at night</title>')).toBe(null);
    expect(at('https://birdnotes.example/', '<title>Home</title>')).toBe(null);
    expect(at('https://birdnotes.example/', '<title>The best birding tips in town</title>')).toBe(null);
    expect(
      at(
        'https://birdnotes.example/',
        '<title>Bird Notes</title><meta property="og:site_name" content="Declared Notes">',
      ),
    ).toBe('Declared Notes');
  });
});

describe('site name from the copyright line of the footer', () => {
  const footer = (line: string, tag = 'footer') =>
    `<article><h1>Owls at night</h1>${text}</article><${tag === 'footer' ? 'footer' : `div class="${tag}"`}><p>${line}</p><a href="/privacy">Privacy</a></${tag === 'footer' ? 'footer' : 'div'}>`;

  it('the holder, without the years, the rights clause and a legal form', () => {
    expect(siteName('<title>Owls at night</title>', footer('© 2024 Bird Notes. All rights reserved.'))).toBe(
      'Bird Notes',
    );
    expect(
      siteName('<title>Owls at night</title>', footer('Copyright © 2009-2024 Bird Notes, Inc. All Rights Reserved')),
    ).toBe('Bird Notes');
    expect(siteName('<title>Owls at night</title>', footer('© 2024 - Bird Notes | Imprint'))).toBe('Bird Notes');
    expect(siteName('<title>Owls at night</title>', footer('© Ana Q. Birdnotes 2016-2024'))).toBe('Ana Q. Birdnotes');
    expect(
      siteName(
        '<title>Owls at night</title>',
        footer('&copy;2005-2015 Bird Notes, LLC. All rights reserved.', 'site-copyright'),
      ),
    ).toBe('Bird Notes');
    expect(
      siteName(
        '<title>Owls at night</title>',
        footer('<a href="/copyright">Copyright policy</a></p><p>© 2024 Bird Notes'),
      ),
    ).toBe('Bird Notes');
    expect(siteName('<title>Owls at night</title>', footer('© Civil Birdnotes Society'))).toBe(
      'Civil Birdnotes Society',
    );
  });

  it("never over any other name, nor a holder that shares no word with the host (a parent company), a line that names no one, a theme's credit or a hidden footer", () => {
    expect(
      siteName('<title>Owls at night</title>', footer('© 2024 Feathered Media Group, Inc. All rights reserved.')),
    ).toBe(null);
    expect(siteName('<title>Owls at night | Title Notes</title>', footer('© 2024 Bird Notes'))).toBe('Title Notes');
    expect(
      siteName(
        '<title>Owls at night</title>',
        `<header><a href="/">Text Logo Notes</a></header>${footer('© 2024 Bird Notes')}`,
      ),
    ).toBe('Text Logo Notes');
    expect(siteName('<title>Owls at night</title>', footer('© 2024. All rights reserved.'))).toBe(null);
    expect(siteName('<title>Owls at night</title>', footer('All content © 2024 the authors'))).toBe(null);
    expect(siteName('<title>Owls at night</title>', footer('Copyright © 2024 WordPress Theme by ThemeForest'))).toBe(
      null,
    );
    expect(siteName('<title>Owls at night</title>', footer('Map data © OpenStreetMap contributors'))).toBe(null);
    expect(siteName('<title>Owls at night</title>', footer('© Crown copyright'))).toBe(null);
    expect(
      siteName(
        '<title>Owls at night</title>',
        `<article><h1>Owls at night</h1>${text}</article><footer hidden><p>© 2024 Bird Notes</p></footer>`,
      ),
    ).toBe(null);
    expect(
      siteName(
        '<title>Owls at night</title>',
        `<article><h1>Owls at night</h1>${text}<footer><p>Photo © Wire Images</p></footer></article>`,
      ),
    ).toBe(null);
  });
});
