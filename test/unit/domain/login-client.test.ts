import { expect } from 'chai';
import { loginClientOf } from '../../../src/domain/auth/login-client.js';

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

  it('counts what is no address as it is', () => {
    for (const text of ['', 'unknown', '1:2:3', '2001:db8::1::2', 'gggg::1', '::ffff:1.2.3.999']) expect(loginClientOf(text), text).to.equal(text);
  });
});
