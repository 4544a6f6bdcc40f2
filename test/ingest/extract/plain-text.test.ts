import { describe, expect, it } from 'vitest';
import type { IngestItem } from '../../../src/platform/contract/ingest-item.js';
import { extractItem } from '../../../src/ingest/extract/index.js';
import { CHECKSUM, factOf, readPage, RECEIVED, site } from './helpers.js';

/**
 * Issue 18, text items: a plain text's first line is its title and its
 * first paragraph its description, as a page's <h1> and first <p>.
 */

function extractText(file: string, extra: Partial<IngestItem> = {}) {
  return extractItem(
    {
      type: 'page',
      id: file,
      url: `https://shop.example/${file}`,
      text: readPage(file),
      checksum: CHECKSUM,
      ...extra,
    } as IngestItem,
    site,
    { receivedAt: RECEIVED },
  );
}

describe('a text item (notice.txt)', () => {
  const c = extractText('notice.txt');

  it('bug: a text item without a title was named by its url with no facts; now its first line names it', () => {
    expect(c.entities[0]?.name).toBe('Closed for Inventory');
    expect(factOf(c, 'name', 'text_extraction')).toMatchObject({ value: 'Closed for Inventory', confidence: 0.55 });
    expect(c.source.title).toBe('Closed for Inventory');
  });

  it('its first paragraph after the title line is the description (lines joined)', () => {
    expect(factOf(c, 'description', 'text_extraction')).toMatchObject({
      value: 'The shop is closed on Monday 2 March while we count the stock. Orders placed online ship on Tuesday.',
      confidence: 0.5,
    });
    expect(c.entities[0]?.attributes.description).toBe(
      'The shop is closed on Monday 2 March while we count the stock. Orders placed online ship on Tuesday.',
    );
  });

  it('the chunks still hold the whole text', () => {
    expect(c.chunks.map((ch) => ch.text).join('\n\n')).toContain('Thank you for your patience.');
  });
});

describe('other shapes of a plain text', () => {
  it('a "#" heading line is the title without its marks; the rest of its paragraph is the description', () => {
    const c = extractText('returns.txt');
    expect(c.entities[0]?.name).toBe('Returns policy');
    expect(factOf(c, 'description', 'text_extraction')?.value).toBe(
      'Items can be returned within 30 days of delivery.',
    );
  });

  it("the item's own title and a json description win; the first line stays a weaker name candidate", () => {
    const c = extractText('notice.txt', { title: 'Shop closed', json: { description: 'Inventory day.' } });
    expect(c.entities[0]?.name).toBe('Shop closed');
    expect(factOf(c, 'name', 'text_extraction')?.value).toBe('Closed for Inventory');
    expect(factOf(c, 'description', 'text_extraction')).toBeUndefined();
    expect(factOf(c, 'description', 'cms_field')?.value).toBe('Inventory day.');
  });

  it('a first line longer than 150 characters is prose, not a title: the item keeps its url as its name and the paragraph describes it', () => {
    const long =
      'We are closed on Monday while we count every jar, bag and tin in the shop, so that the stock shown online matches what is on our shelves once again, jar for jar.';
    expect(long.length).toBeGreaterThan(150);
    const c = extractItem(
      {
        type: 'page',
        id: 'long',
        url: 'https://shop.example/long',
        text: `${long}\n\nSee you on Tuesday.`,
        checksum: CHECKSUM,
      } as IngestItem,
      site,
      { receivedAt: RECEIVED },
    );
    expect(c.entities[0]?.name).toBe('https://shop.example/long');
    expect(factOf(c, 'description', 'text_extraction')?.value).toBe(long);
  });

  it('an html item is read as html: its text field adds chunks, not a title', () => {
    const c = extractItem(
      {
        type: 'page',
        id: 'h',
        url: 'https://shop.example/h',
        html: '<html><head><title>Opening hours</title></head><body><p>Open daily from nine.</p></body></html>',
        text: readPage('notice.txt'),
        checksum: CHECKSUM,
      } as IngestItem,
      site,
      { receivedAt: RECEIVED },
    );
    expect(c.entities[0]?.name).toBe('Opening hours');
    expect(factOf(c, 'name', 'text_extraction')).toBeUndefined();
  });
});
