import { describe, expect, it } from 'vitest';
import { automaticGatewayAddress, gatewayAddressProblem } from '#engine/sites';

const lan = () => ['192.0.2.10', '2001:db8::10'];
const none = () => [];

describe('the automatic gateway address', () => {
  it('a loopback listener is reached on 127.0.0.1', () => {
    expect(automaticGatewayAddress({ host: '127.0.0.1', port: 9081 }, lan)).toBe('127.0.0.1:9081');
    expect(automaticGatewayAddress({ host: '::1', port: 9081 }, lan)).toBe('127.0.0.1:9081');
  });

  it("a wildcard listener is reached on the appliance's LAN address, so a gateway on another host connects", () => {
    expect(automaticGatewayAddress({ host: '0.0.0.0', port: 9081 }, lan)).toBe('192.0.2.10:9081');
    expect(automaticGatewayAddress({ host: '::', port: 9081 }, () => ['2001:db8::10'])).toBe('[2001:db8::10]:9081');
  });

  it('a wildcard listener on a host with no LAN address falls back to loopback', () => {
    expect(automaticGatewayAddress({ host: '0.0.0.0', port: 9081 }, none)).toBe('127.0.0.1:9081');
  });

  it('a listener on one address is reached there', () => {
    expect(automaticGatewayAddress({ host: '198.51.100.4', port: 9443 }, lan)).toBe('198.51.100.4:9443');
  });

  it('an address given at start-up wins over the worked-out one', () => {
    expect(automaticGatewayAddress({ host: '0.0.0.0', port: 9081, environment: 'rampart.lan:9081' }, lan)).toBe(
      'rampart.lan:9081',
    );
  });
});

describe('a gateway address an operator types', () => {
  it.each(['192.0.2.10:9081', 'rampart.example.lan:9081', '[2001:db8::1]:443', 'localhost:1'])(
    'accepts %s',
    (value) => {
      expect(gatewayAddressProblem(value)).toBeNull();
    },
  );

  it.each([
    '192.0.2.10',
    ':9081',
    'a b:9081',
    '192.0.2.10:0',
    '192.0.2.10:65536',
    '[zz::1]:80',
    '-bad.lan:80',
    `${'a'.repeat(64)}.lan:80`,
  ])('refuses %j', (value) => {
    expect(gatewayAddressProblem(value)).not.toBeNull();
  });
});
