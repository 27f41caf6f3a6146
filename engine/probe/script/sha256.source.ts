/**
 * SHA-256 in ES3 for the probe (IE 8+): WebCrypto is absent on plain HTTP and in old browsers.
 * `rampartSha256Words(bytes)` hashes an array of byte values and returns eight 32-bit words;
 * `rampartSha256Hex(text)` hashes the UTF-8 bytes of a string. The text is inserted verbatim into
 * the rendered probe (inside its wrapper function), and unit tests evaluate it on its own.
 */
export const SHA256_SOURCE = String.raw`
var RAMPART_SHA256_K = [
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2
];

function rampartUtf8Bytes(text) {
  var s, i, out = [];
  try {
    s = unescape(encodeURIComponent(text));
  } catch (e) {
    s = text; /* lone surrogates: hash the low bytes of the code units instead of failing */
  }
  for (i = 0; i < s.length; i++) {
    out[i] = s.charCodeAt(i) & 0xff;
  }
  return out;
}

function rampartSha256Words(bytes) {
  var K = RAMPART_SHA256_K;
  var H = [0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19];
  var W = [];
  var len = bytes.length;
  var bitLenHi = Math.floor(len / 0x20000000);
  var bitLenLo = (len * 8) >>> 0;
  var total = ((len + 9 + 63) >> 6) << 4; /* words in the padded message */
  var M = [];
  var i, j, a, b, c, d, e, f, g, h, t1, t2, s0, s1, w15, w2;
  for (i = 0; i < total; i++) M[i] = 0;
  for (i = 0; i < len; i++) M[i >> 2] |= (bytes[i] & 0xff) << (24 - (i & 3) * 8);
  M[len >> 2] |= 0x80 << (24 - (len & 3) * 8);
  M[total - 2] = bitLenHi | 0;
  M[total - 1] = bitLenLo | 0;
  for (j = 0; j < total; j += 16) {
    for (i = 0; i < 16; i++) W[i] = M[j + i] | 0;
    for (i = 16; i < 64; i++) {
      w15 = W[i - 15];
      w2 = W[i - 2];
      s0 = ((w15 >>> 7) | (w15 << 25)) ^ ((w15 >>> 18) | (w15 << 14)) ^ (w15 >>> 3);
      s1 = ((w2 >>> 17) | (w2 << 15)) ^ ((w2 >>> 19) | (w2 << 13)) ^ (w2 >>> 10);
      W[i] = (W[i - 16] + s0 + W[i - 7] + s1) | 0;
    }
    a = H[0]; b = H[1]; c = H[2]; d = H[3]; e = H[4]; f = H[5]; g = H[6]; h = H[7];
    for (i = 0; i < 64; i++) {
      s1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
      t1 = (h + s1 + ((e & f) ^ (~e & g)) + K[i] + W[i]) | 0;
      s0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
      t2 = (s0 + ((a & b) ^ (a & c) ^ (b & c))) | 0;
      h = g; g = f; f = e; e = (d + t1) | 0;
      d = c; c = b; b = a; a = (t1 + t2) | 0;
    }
    H[0] = (H[0] + a) | 0; H[1] = (H[1] + b) | 0; H[2] = (H[2] + c) | 0; H[3] = (H[3] + d) | 0;
    H[4] = (H[4] + e) | 0; H[5] = (H[5] + f) | 0; H[6] = (H[6] + g) | 0; H[7] = (H[7] + h) | 0;
  }
  return H;
}

function rampartWordsHex(words, count) {
  var out = '', i, w, part;
  for (i = 0; i < count; i++) {
    w = words[i] >>> 0;
    part = w.toString(16);
    while (part.length < 8) part = '0' + part;
    out += part;
  }
  return out;
}

function rampartSha256Hex(text) {
  return rampartWordsHex(rampartSha256Words(rampartUtf8Bytes(text)), 8);
}

/* Leading zero bits of a digest, as the server counts them (most significant bit of word 0 first). */
function rampartLeadingZeroBits(words) {
  var n = 0, i, w;
  for (i = 0; i < 8; i++) {
    w = words[i] >>> 0;
    if (w === 0) {
      n += 32;
    } else {
      while ((w & 0x80000000) === 0) {
        n++;
        w = (w << 1) >>> 0;
      }
      return n;
    }
  }
  return n;
}
`;
