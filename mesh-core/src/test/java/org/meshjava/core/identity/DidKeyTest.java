package org.meshjava.core.identity;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.math.BigInteger;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.meshjava.core.crypto.SignatureException;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.core.crypto.VerificationKey;
import org.meshjava.core.identity.DidKeyException.Reason;

/** {@code did:key} for Ed25519: known vectors, round trips, and refusal of everything else. */
class DidKeyTest {
  private static final HexFormat HEX = HexFormat.of();
  private static final String ALPHABET =
      "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";

  /** A base58btc decoder written independently of the one under test: big-integer arithmetic. */
  private static byte[] base58ByHand(String text) {
    BigInteger n = BigInteger.ZERO;
    for (char c : text.toCharArray()) {
      int digit = ALPHABET.indexOf(c);
      assertThat(digit).as("base58 digit %s", c).isNotNegative();
      n = n.multiply(BigInteger.valueOf(58)).add(BigInteger.valueOf(digit));
    }
    byte[] magnitude = n.signum() == 0 ? new byte[0] : n.toByteArray();
    if (magnitude.length > 0 && magnitude[0] == 0) {
      magnitude = Arrays.copyOfRange(magnitude, 1, magnitude.length);
    }
    int zeros = 0;
    while (zeros < text.length() && text.charAt(zeros) == '1') {
      zeros++;
    }
    byte[] out = new byte[zeros + magnitude.length];
    System.arraycopy(magnitude, 0, out, zeros, magnitude.length);
    return out;
  }

  private static String base58ByHand(byte[] bytes) {
    BigInteger n = new BigInteger(1, bytes);
    StringBuilder sb = new StringBuilder();
    while (n.signum() > 0) {
      BigInteger[] qr = n.divideAndRemainder(BigInteger.valueOf(58));
      sb.append(ALPHABET.charAt(qr[1].intValue()));
      n = qr[0];
    }
    for (int i = 0; i < bytes.length && bytes[i] == 0; i++) {
      sb.append('1');
    }
    return sb.reverse().toString();
  }

  private static Reason refusal(String text) {
    try {
      DidKey d = DidKey.parse(text);
      return fail("accepted " + text + " as " + d.verificationKey());
    } catch (DidKeyException e) {
      return e.reason();
    }
  }

  @Test
  void w3cExample_publicKeyBase58_matchesItsDidKey() throws Exception {
    // The did:key method specification's Ed25519 example: the DID and its publicKeyBase58.
    String did = "did:key:z6MkpTHR8VNsBxYAAWHut2Geadd9jSwuBV8xRoAnwWsdvktH";
    byte[] raw = base58ByHand("B12NYF8RrR3h41TDCTJojY59usg3mbtbjnFs7Eud1Y6u");
    assertThat(raw).hasSize(32);
    DidKey parsed = DidKey.parse(did);
    assertThat(parsed.verificationKey().bytes()).isEqualTo(raw);
    assertThat(DidKey.of(VerificationKey.of(raw)).value()).isEqualTo(did);
    byte[] decoded = base58ByHand(did.substring("did:key:z".length()));
    assertThat(HEX.formatHex(decoded, 0, 2)).isEqualTo("ed01");
  }

  @Test
  void rfc8032Keys_haveTheDidKeysOtherImplementationsPublish() throws Exception {
    String[][] known = {
      {
        "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a",
        "did:key:z6MktwupdmLXVVqTzCw4i46r4uGyosGXRnR3XjN4Zq7oMMsw"
      },
      {
        "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c",
        "did:key:z6MkiaMbhXHNA4eJVCCj8dbzKzTgYDKf6crKgHVHid1F1WCT"
      },
      {
        "fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025",
        "did:key:z6MkwSD8dBdqcXQzKJZQFPy2hh2izzxskndKCjdmC2dBpfME"
      },
    };
    for (String[] k : known) {
      byte[] pub = HEX.parseHex(k[0]);
      // Cross-check the published text by decoding it by hand: 0xed 0x01 then the key.
      byte[] decoded = base58ByHand(k[1].substring("did:key:z".length()));
      assertThat(HEX.formatHex(decoded)).isEqualTo("ed01" + k[0]);
      assertThat(DidKey.of(VerificationKey.of(pub)).value()).isEqualTo(k[1]);
      assertThat(DidKey.parse(k[1]).verificationKey().bytes()).isEqualTo(pub);
    }
  }

  @Test
  void randomKeys_roundTripThroughText_andAgreeWithTheHandEncoder() throws Exception {
    Random random = new Random(0xD1DL);
    for (int n = 0; n < 500; n++) {
      byte[] seed = new byte[32];
      random.nextBytes(seed);
      VerificationKey key = SigningKey.fromSeed(seed).verificationKey();
      DidKey did = DidKey.of(key);
      byte[] prefixed = new byte[34];
      prefixed[0] = (byte) 0xed;
      prefixed[1] = 0x01;
      System.arraycopy(key.bytes(), 0, prefixed, 2, 32);
      assertThat(did.value())
          .as("seed 0xD1D case %d", n)
          .isEqualTo("did:key:z" + base58ByHand(prefixed));
      DidKey parsed = DidKey.parse(did.value());
      assertThat(parsed).isEqualTo(did).hasSameHashCodeAs(did);
      assertThat(parsed.verificationKey()).isEqualTo(key);
      assertThat(parsed.toString()).isEqualTo(did.value());
    }
  }

  @Test
  void parse_whenPrefixWrong_refusesAsPrefix() {
    String good = "z6MktwupdmLXVVqTzCw4i46r4uGyosGXRnR3XjN4Zq7oMMsw";
    for (String bad :
        new String[] {
          "",
          "did:key:",
          "did:key:" + good.substring(1),
          "DID:key:" + good,
          "did:web:" + good,
          "did:key:Z" + good.substring(1),
          "did:key:f" + good.substring(1),
          " did:key:" + good,
          "did:key:m" + good.substring(1)
        }) {
      assertThat(refusal(bad)).as("'%s'", bad).isEqualTo(Reason.PREFIX);
    }
  }

  @Test
  void parse_whenCharacterOutsideBase58_refusesAsNotBase58() {
    String good = "did:key:z6MktwupdmLXVVqTzCw4i46r4uGyosGXRnR3XjN4Zq7oMMsw";
    for (char c :
        new char[] {
          '0', 'O', 'I', 'l', '+', '/', '=', ' ', '\u007f', '\u0080', '\u00e9', '\u0661'
        }) {
      String bad = good.substring(0, 20) + c + good.substring(21);
      assertThat(refusal(bad)).as("with '%s'", c).isEqualTo(Reason.NOT_BASE58);
    }
    assertThat(refusal(good + "\n")).isEqualTo(Reason.NOT_BASE58);
  }

  @Test
  void parse_whenMulticodecIsNotEd25519_refusesAsNotEd25519() {
    byte[] key = HEX.parseHex("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a");
    for (String codec : new String[] {"ec01", "e701", "1200", "ed00", "ed02", "01ed"}) {
      byte[] raw = new byte[34];
      System.arraycopy(HEX.parseHex(codec), 0, raw, 0, 2);
      System.arraycopy(key, 0, raw, 2, 32);
      assertThat(refusal("did:key:z" + base58ByHand(raw))).as(codec).isEqualTo(Reason.NOT_ED25519);
    }
    assertThat(refusal("did:key:z")).isEqualTo(Reason.NOT_ED25519); // nothing at all
    assertThat(refusal("did:key:z2")).isEqualTo(Reason.NOT_ED25519); // one byte
  }

  @Test
  void parse_whenKeyIsNot32Bytes_refusesAsKeyLength() {
    for (int len : new int[] {0, 1, 31, 33, 64}) {
      byte[] raw = new byte[2 + len];
      raw[0] = (byte) 0xed;
      raw[1] = 0x01;
      Arrays.fill(raw, 2, raw.length, (byte) 0x5a);
      assertThat(refusal("did:key:z" + base58ByHand(raw)))
          .as("%d bytes", len)
          .isEqualTo(Reason.KEY_LENGTH);
    }
  }

  @Test
  void parse_whenLeadingOnesAddZeroBytes_refuses() {
    // A leading '1' is a leading zero byte: the same number, a different (non-canonical) text.
    String tail = "6MktwupdmLXVVqTzCw4i46r4uGyosGXRnR3XjN4Zq7oMMsw";
    assertThat(refusal("did:key:z1" + tail)).isEqualTo(Reason.NOT_ED25519);
    assertThat(refusal("did:key:z11" + tail)).isEqualTo(Reason.NOT_ED25519);
  }

  @Test
  void parse_whenTooLong_refusesAsTooLong() {
    assertThat(refusal("did:key:z" + "2".repeat(200))).isEqualTo(Reason.TOO_LONG);
    assertThat(refusal("did:key:z" + "2".repeat(100_000))).isEqualTo(Reason.TOO_LONG);
  }

  @Test
  void parse_whenBytesAreNotACurvePoint_refusesAsInvalidKey() {
    byte[] raw = new byte[34];
    raw[0] = (byte) 0xed;
    raw[1] = 0x01;
    raw[2] = 2; // y = 2 has no x on the curve
    assertThat(refusal("did:key:z" + base58ByHand(raw))).isEqualTo(Reason.INVALID_KEY);
  }

  @Test
  void parse_ofAKeyWrittenWithYAboveP_refusesAsInvalidKey_soAKeyHasOneDidKey() {
    // y = p + 3 reduces to y = 3, a point of large order; read modulo p it would be a second
    // did:key for that point's key, one DidKey.equals (which compares the text) would tell apart.
    BigInteger p = BigInteger.TWO.pow(255).subtract(BigInteger.valueOf(19));
    byte[] big = p.add(BigInteger.valueOf(3)).toByteArray();
    byte[] raw = new byte[34];
    raw[0] = (byte) 0xed;
    raw[1] = 0x01;
    for (int i = 0; i < 32; i++) {
      raw[2 + i] = big[big.length - 1 - i];
    }
    assertThat(refusal("did:key:z" + base58ByHand(raw))).isEqualTo(Reason.INVALID_KEY);
  }

  @Test
  void parse_onRandomStrings_refusesTyped_neverThrowsOtherwise() {
    Random random = new Random(0xBADD1DL);
    String chars = ALPHABET + "0OIl:+/= \u00e9\u0000";
    for (int n = 0; n < 20_000; n++) {
      StringBuilder sb = new StringBuilder(random.nextInt(4) == 0 ? "" : "did:key:z");
      int len = random.nextInt(60);
      for (int i = 0; i < len; i++) {
        sb.append(chars.charAt(random.nextInt(chars.length())));
      }
      String text = sb.toString();
      try {
        DidKey d = DidKey.parse(text);
        assertThat(d.value()).as("seed 0xBADD1D case %d", n).isEqualTo(text);
      } catch (DidKeyException e) {
        assertThat(e.reason()).isNotNull();
      } catch (RuntimeException e) {
        throw new AssertionError("seed 0xBADD1D case " + n + " '" + text + "' threw " + e, e);
      }
    }
  }

  @Test
  void parse_onMutatedValidDids_refusesTypedOrReturnsTheSameText() throws SignatureException {
    Random random = new Random(0xD1D2L);
    for (int n = 0; n < 5000; n++) {
      byte[] seed = new byte[32];
      random.nextBytes(seed);
      StringBuilder sb =
          new StringBuilder(DidKey.of(SigningKey.fromSeed(seed).verificationKey()).value());
      int at = 9 + random.nextInt(sb.length() - 9);
      switch (random.nextInt(3)) {
        case 0 -> sb.setCharAt(at, ALPHABET.charAt(random.nextInt(58)));
        case 1 -> sb.deleteCharAt(at);
        default -> sb.insert(at, ALPHABET.charAt(random.nextInt(58)));
      }
      String text = sb.toString();
      try {
        assertThat(DidKey.parse(text).value()).isEqualTo(text);
      } catch (DidKeyException e) {
        assertThat(e.reason()).isNotNull();
      } catch (RuntimeException e) {
        throw new AssertionError("seed 0xD1D2 case " + n + " '" + text + "' threw " + e, e);
      }
    }
  }

  @Test
  void parse_ofAKeyNoEarlierParseCanHaveSeen_returnsThatKey() throws Exception {
    // Parsed identities are cached process-wide, so a fixed text may be answered from the cache;
    // this key is new to the process, so its parse takes the full path. The seed is in the message.
    long seed = System.nanoTime();
    byte[] seedBytes = new byte[32];
    new Random(seed).nextBytes(seedBytes);
    VerificationKey key = SigningKey.fromSeed(seedBytes).verificationKey();
    String text = DidKey.of(key).value();
    DidKey first = DidKey.parse(text);
    assertThat(first).as("seed %d", seed).isNotNull();
    assertThat(first.verificationKey()).as("seed %d", seed).isEqualTo(key);
    assertThat(first.value()).isEqualTo(text);
    // The second parse of the same text is answered from the cache, with the same identity.
    assertThat(DidKey.parse(text)).as("seed %d", seed).isSameAs(first);
  }

  @Test
  void equals_comparesTheText() throws Exception {
    DidKey a = DidKey.parse("did:key:z6MktwupdmLXVVqTzCw4i46r4uGyosGXRnR3XjN4Zq7oMMsw");
    DidKey b = DidKey.parse("did:key:z6MkiaMbhXHNA4eJVCCj8dbzKzTgYDKf6crKgHVHid1F1WCT");
    assertThat(a).isEqualTo(DidKey.of(a.verificationKey())).isNotEqualTo(b);
    assertThat(a.equals(a.value())).isFalse();
    assertThat(a.equals(null)).isFalse();
  }

  @Test
  void parse_atExactlyTheLengthLimit_readsTheText() {
    // 128 characters is still read (and then refused for what it holds); 129 is too long.
    String atLimit = "did:key:z" + "2".repeat(128 - "did:key:z".length());
    assertThat(atLimit).hasSize(128);
    assertThat(refusal(atLimit)).isEqualTo(Reason.NOT_ED25519);
    assertThat(refusal(atLimit + "2")).isEqualTo(Reason.TOO_LONG);
  }

  @Test
  void parse_ofMoreKeysThanTheCacheHolds_keepsTheCacheBounded_andUsed() throws Exception {
    // Valid keys are free to make, so a cache that only grew would let hostile input exhaust
    // memory.
    Random random = new Random(0xCAC4EL);
    int largest = 0;
    int parsed = 0;
    while (parsed < DidKey.PARSED_LIMIT + 100) {
      byte[] y = new byte[32];
      random.nextBytes(y);
      VerificationKey key;
      try {
        key = VerificationKey.of(y);
      } catch (SignatureException notAPoint) {
        continue;
      }
      DidKey.parse(DidKey.of(key).value());
      parsed++;
      largest = Math.max(largest, DidKey.parsedCacheSize());
    }
    assertThat(largest).isEqualTo(DidKey.PARSED_LIMIT);
  }
}
