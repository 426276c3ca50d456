import { expect } from 'chai';
import { UNKNOWN_LOGIN_CLIENT, loginClientOf, loginNetworkOf } from '../../../src/domain/auth/login-client.js';

describe('loginClientOf: who a login attempt counts against', () => {
  it('counts an IPv6 address by its /64 network, however it is written', () => {
    const network = '2001:db8:85a3:8d3::/64';
    for (const address of ['2001:db8:85a3:8d3::1', '2001:0DB8:85A3:08D3:ffff:ffff:ffff:ffff', '2001:db8:85a3:8d3:1:2:3:4', '2001:db8:85a3:8d3::5%eth0']) {
      expect(loginClientOf(address), address).to.equal(network);
    }
    expect(loginClientOf('2001:db8:85a3:8d4::1')).to.equal('2001:db8:85a3:8d4::/64');
    expect(loginClientOf('::1')).to.equal('0:0:0:0::/64');
    expect(loginClientOf('64:ff9b::192.0.2.33')).to.equal('64:ff9b:0:0::/64');
  });

  it('counts an IPv4 address, also one written as IPv6, as itself', () => {
    expect(loginClientOf('192.0.2.1')).to.equal('192.0.2.1');
    expect(loginClientOf('::ffff:192.0.2.1')).to.equal('192.0.2.1');
    expect(loginClientOf('::FFFF:192.0.2.1')).to.equal('192.0.2.1');
  });

  it('drops the port a proxy wrote with the address', () => {
    expect(loginClientOf('203.0.113.5:51234')).to.equal('203.0.113.5');
    expect(loginClientOf('203.0.113.5:1')).to.equal('203.0.113.5');
    expect(loginClientOf('[2001:db8::1]:443')).to.equal('2001:db8:0:0::/64');
    expect(loginClientOf('[2001:db8::1]')).to.equal('2001:db8:0:0::/64');
    expect(loginClientOf('[::ffff:192.0.2.1]:8080')).to.equal('192.0.2.1');
    expect(loginClientOf('[fe80::1%eth0]:22')).to.equal('fe80:0:0:0::/64');
    expect(loginClientOf(' 203.0.113.5 ')).to.equal('203.0.113.5');
  });

  it('writes an IPv4 address one way: without leading zeros, and from its IPv6 hex form', () => {
    expect(loginClientOf('203.000.113.05')).to.equal('203.0.113.5');
    expect(loginClientOf('::ffff:c000:201')).to.equal('192.0.2.1');
    expect(loginClientOf('0:0:0:0:0:ffff:c000:201')).to.equal('192.0.2.1');
  });

  it('counts everything that is no address as one shared client', () => {
    const garbage = [
      '',
      'unknown',
      'UNKNOWN',
      '1:2:3',
      '2001:db8::1::2',
      'gggg::1',
      '::ffff:1.2.3.999',
      '256.1.1.1',
      '1.2.3',
      '1.2.3.4.5',
      '1.2.3.4:',
      '1.2.3.4:port',
      '[2001:db8::1',
      'example.com:443',
      '_hidden',
      '1.2.3.4, 5.6.7.8',
    ];
    for (const text of garbage) expect(loginClientOf(text), text).to.equal(UNKNOWN_LOGIN_CLIENT);
  });
});

describe('loginNetworkOf: the network whose logins share one place in the line for a password check', () => {
  it('groups IPv6 clients by /48 and IPv4 clients (also written as IPv6, with a port) by /24', () => {
    for (const address of ['2001:db8:bad::1', '2001:db8:bad:ffff::1', '[2001:DB8:BAD:1:2:3:4:5]:443']) {
      expect(loginNetworkOf(address), address).to.equal('2001:db8:bad::/48');
    }
    expect(loginNetworkOf('2001:db8:bae::1')).to.equal('2001:db8:bae::/48');
    for (const address of ['203.0.113.5', '203.0.113.250:51234', '::ffff:203.0.113.9']) expect(loginNetworkOf(address), address).to.equal('203.0.113.0/24');
    expect(loginNetworkOf('203.0.114.5')).to.equal('203.0.114.0/24');
  });

  it('keeps whatever is no address as its own network', () => {
    for (const text of ['', 'unknown', '1.2.3']) expect(loginNetworkOf(text), text).to.equal(UNKNOWN_LOGIN_CLIENT);
  });
});
