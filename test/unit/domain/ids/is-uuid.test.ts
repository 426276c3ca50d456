import { expect } from 'chai';
import { isUuid } from '../../../../src/domain/ids/is-uuid.js';

describe('isUuid', () => {
  it('takes a UUID in any case and of any version, as every id check did before it was shared', () => {
    for (const id of [
      '0f8fad5b-d9cb-469f-a165-70867728950e',
      '0F8FAD5B-D9CB-469F-A165-70867728950E',
      '01890a5d-ac96-774b-bcce-b302099a8057',
      '00000000-0000-0000-0000-000000000000',
      'ffffffff-ffff-ffff-ffff-ffffffffffff',
    ]) {
      expect(isUuid(id), id).to.equal(true);
    }
  });

  it('refuses anything else: braces, no dashes, surrounding spaces, a non-hex digit, a short group', () => {
    for (const id of [
      '',
      '{0f8fad5b-d9cb-469f-a165-70867728950e}',
      '0f8fad5bd9cb469fa16570867728950e',
      ' 0f8fad5b-d9cb-469f-a165-70867728950e',
      '0f8fad5b-d9cb-469f-a165-70867728950e\n',
      '0f8fad5b-d9cb-469f-a165-70867728950g',
      '0f8fad5-d9cb-469f-a165-70867728950e',
    ]) {
      expect(isUuid(id), JSON.stringify(id)).to.equal(false);
    }
  });
});
