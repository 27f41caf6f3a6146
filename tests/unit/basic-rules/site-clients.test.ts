import { describe, expect, it } from 'vitest';
import { SiteClients } from '../../../engine/basic-rules/site-clients.ts';

describe('SiteClients', () => {
  it('keeps a value per site and address', () => {
    const clients = new SiteClients<number>(10);
    clients.set('s1', '10.0.0.1', 1);
    clients.set('s2', '10.0.0.1', 2);
    expect(clients.get('s1', '10.0.0.1')).toBe(1);
    expect(clients.get('s2', '10.0.0.1')).toBe(2);
    expect(clients.get('s1', '10.0.0.2')).toBeUndefined();
  });

  it('drops the oldest client when full, and never grows past its bound', () => {
    const clients = new SiteClients<number>(3);
    for (let i = 1; i <= 5; i++) clients.set('s', `10.0.0.${i}`, i);
    expect(clients.size).toBe(3);
    expect(clients.get('s', '10.0.0.1')).toBeUndefined();
    expect(clients.get('s', '10.0.0.2')).toBeUndefined();
    expect(clients.get('s', '10.0.0.5')).toBe(5);
  });

  it('updating a known client when full evicts nobody', () => {
    const clients = new SiteClients<number>(2);
    clients.set('s', 'a', 1);
    clients.set('s', 'b', 2);
    clients.set('s', 'a', 3);
    expect(clients.get('s', 'a')).toBe(3);
    expect(clients.get('s', 'b')).toBe(2);
  });

  it('clears expired entries before it evicts a live one', () => {
    const clients = new SiteClients<number>(3, { now: () => 100, over: (until, now) => until <= now });
    clients.set('s', 'live', 500);
    clients.set('s', 'lapsed-1', 50);
    clients.set('s', 'lapsed-2', 60);
    clients.set('s', 'new', 700);
    expect(clients.get('s', 'live')).toBe(500);
    expect(clients.get('s', 'new')).toBe(700);
    expect(clients.size).toBe(2);
  });

  it('forgets one site without touching another, even one whose id starts the same', () => {
    const clients = new SiteClients<number>(10);
    clients.set('s1', 'a', 1);
    clients.set('s10', 'a', 2);
    clients.forget('s1');
    expect(clients.get('s1', 'a')).toBeUndefined();
    expect(clients.get('s10', 'a')).toBe(2);
  });
});
