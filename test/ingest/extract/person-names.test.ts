import { describe, expect, it } from 'vitest';
import { personNames } from '../../../src/ingest/extract/person-names.js';

describe('personNames', () => {
  it('splits a line of full names on "and", "&", commas and an Oxford comma', () => {
    expect(personNames('Jane Roe and John Doe')).toEqual(['Jane Roe', 'John Doe']);
    expect(personNames('Jane Roe & John Doe')).toEqual(['Jane Roe', 'John Doe']);
    expect(personNames('Jane Roe, John Doe and Ann Lee')).toEqual(['Jane Roe', 'John Doe', 'Ann Lee']);
    expect(personNames('Jane Roe, John Doe, and Ann Lee')).toEqual(['Jane Roe', 'John Doe', 'Ann Lee']);
    expect(personNames('Jane Roe; John Doe')).toEqual(['Jane Roe', 'John Doe']);
  });

  it('splits on "and" in other languages and keeps name particles', () => {
    expect(personNames('Jana Schmidt und Max Meier')).toEqual(['Jana Schmidt', 'Max Meier']);
    expect(personNames('Jeanne Dupont et Luc Martin')).toEqual(['Jeanne Dupont', 'Luc Martin']);
    expect(personNames('Ludwig van Beethoven and María de la Cruz')).toEqual([
      'Ludwig van Beethoven',
      'María de la Cruz',
    ]);
  });

  it('splits on "with", and on co-authors in closing parentheses ("avec ... et ...")', () => {
    expect(personNames('Jane Roe with John Doe')).toEqual(['Jane Roe', 'John Doe']);
    expect(personNames('Martin Untersinger (avec Damien Leloup et Morgane Tual)')).toEqual([
      'Martin Untersinger',
      'Damien Leloup',
      'Morgane Tual',
    ]);
    expect(personNames('Jana Schmidt (mit Max Meier)')).toEqual(['Jana Schmidt', 'Max Meier']);
    // Parentheses that are not a list of co-authors stay part of the one name.
    expect(personNames('Jane Roe (Reuters)')).toEqual(['Jane Roe (Reuters)']);
    expect(personNames('Jane Roe (with reporting)')).toEqual(['Jane Roe (with reporting)']);
  });

  it('keeps one name when a part is not a full name', () => {
    expect(personNames('Jane Roe')).toEqual(['Jane Roe']);
    expect(personNames('Roe, Jane')).toEqual(['Roe, Jane']);
    expect(personNames('Jong, Michiel de')).toEqual(['Jong, Michiel de']);
    expect(personNames('Procter and Gamble')).toEqual(['Procter and Gamble']);
    expect(personNames('Jane and John Roe')).toEqual(['Jane and John Roe']);
    expect(personNames('José Ortega y Gasset')).toEqual(['José Ortega y Gasset']);
    expect(personNames('the editors and Jane Roe')).toEqual(['the editors and Jane Roe']);
  });

  it('names a person once', () => {
    expect(personNames('Jane Roe and Jane Roe')).toEqual(['Jane Roe']);
  });
});
