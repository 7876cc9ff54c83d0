package org.meshjava.core.crypto;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.InputStream;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** {@link SigningKey} and {@link VerificationKey} against RFC 8032 §7.1 and against tampering. */
class Ed25519Test {
  private static final HexFormat HEX = HexFormat.of();

  private record Vector(String name, byte[] secret, byte[] publicKey, byte[] message, byte[] sig) {}

  private static List<Vector> vectors;

  @BeforeAll
  static void load() throws Exception {
    try (InputStream in = Ed25519Test.class.getResourceAsStream("rfc8032-ed25519.json")) {
      JsonNode root = new ObjectMapper().readTree(in);
      List<Vector> list = new ArrayList<>();
      for (JsonNode v : root.get("vectors")) {
        list.add(
            new Vector(
                v.get("name").asText(),
                HEX.parseHex(v.get("secret").asText()),
                HEX.parseHex(v.get("public").asText()),
                HEX.parseHex(v.get("message").asText()),
                HEX.parseHex(v.get("signature").asText())));
      }
      vectors = List.copyOf(list);
    }
  }

  private static Vector vector(String name) {
    return vectors.stream().filter(v -> v.name().equals(name)).findFirst().orElseThrow();
  }

  private static SignatureException.Reason refusal(VerificationKey key, byte[] msg, byte[] sig) {
    try {
      key.verify(msg, sig);
      throw new AssertionError("verified, but should not have");
    } catch (SignatureException e) {
      return e.reason();
    }
  }

  @Test
  void rfc8032_vectors_deriveKeySignAndVerify() throws Exception {
    assertThat(vectors)
        .extracting(Vector::name)
        .containsExactly("TEST 1", "TEST 2", "TEST 3", "TEST 1024");
    assertThat(vector("TEST 1024").message()).hasSize(1023);
    List<String> failures = new ArrayList<>();
    for (Vector v : vectors) {
      SigningKey key = SigningKey.fromSeed(v.secret());
      if (!Arrays.equals(key.verificationKey().bytes(), v.publicKey())) {
        failures.add(v.name() + ": public key differs");
      }
      if (!Arrays.equals(key.sign(v.message()), v.sig())) {
        failures.add(v.name() + ": signature differs");
      }
      try {
        VerificationKey.of(v.publicKey()).verify(v.message(), v.sig());
      } catch (SignatureException e) {
        failures.add(v.name() + ": does not verify: " + e.getMessage());
      }
    }
    assertThat(failures).isEmpty();
  }

  @Test
  void verify_whenMessageChanged_refuses() throws Exception {
    for (Vector v : vectors) {
      VerificationKey key = VerificationKey.of(v.publicKey());
      byte[] longer = Arrays.copyOf(v.message(), v.message().length + 1);
      assertThat(refusal(key, longer, v.sig()))
          .as(v.name())
          .isEqualTo(SignatureException.Reason.DOES_NOT_VERIFY);
      if (v.message().length > 0) {
        byte[] flipped = v.message().clone();
        flipped[flipped.length / 2] ^= 1;
        assertThat(refusal(key, flipped, v.sig()))
            .as(v.name())
            .isEqualTo(SignatureException.Reason.DOES_NOT_VERIFY);
      }
    }
  }

  @Test
  void verify_whenAnySignatureBitFlipped_refuses() throws Exception {
    Vector v = vector("TEST 2");
    VerificationKey key = VerificationKey.of(v.publicKey());
    for (int bit = 0; bit < 512; bit++) {
      byte[] sig = v.sig().clone();
      sig[bit / 8] ^= (byte) (1 << (bit % 8));
      assertThat(refusal(key, v.message(), sig))
          .as("bit %d", bit)
          .isEqualTo(SignatureException.Reason.DOES_NOT_VERIFY);
    }
  }

  @Test
  void verify_whenSignatureIsMalleatedByAddingTheGroupOrder_refuses() throws Exception {
    // S + L encodes the same scalar mod L; RFC 8032 §5.1.7 requires S < L.
    Vector v = vector("TEST 2");
    java.math.BigInteger order =
        java.math.BigInteger.TWO
            .pow(252)
            .add(new java.math.BigInteger("27742317777372353535851937790883648493"));
    byte[] sLittle = Arrays.copyOfRange(v.sig(), 32, 64);
    byte[] sBig = new byte[32];
    for (int i = 0; i < 32; i++) {
      sBig[i] = sLittle[31 - i];
    }
    java.math.BigInteger s = new java.math.BigInteger(1, sBig).add(order);
    byte[] bigEndian = s.toByteArray();
    byte[] malleated = v.sig().clone();
    for (int i = 0; i < 32; i++) {
      int from = bigEndian.length - 1 - i;
      malleated[32 + i] = from >= 0 ? bigEndian[from] : 0;
    }
    assertThat(refusal(VerificationKey.of(v.publicKey()), v.message(), malleated))
        .isEqualTo(SignatureException.Reason.DOES_NOT_VERIFY);
  }

  @Test
  void verify_underAnotherKey_refuses() throws Exception {
    Vector one = vector("TEST 1");
    Vector two = vector("TEST 2");
    assertThat(refusal(VerificationKey.of(two.publicKey()), one.message(), one.sig()))
        .isEqualTo(SignatureException.Reason.DOES_NOT_VERIFY);
  }

  @Test
  void verify_whenSignatureIsNot64Bytes_refusesAsSignatureLength() throws Exception {
    Vector v = vector("TEST 3");
    VerificationKey key = VerificationKey.of(v.publicKey());
    for (int len : new int[] {0, 1, 63, 65, 128}) {
      byte[] sig = Arrays.copyOf(v.sig(), len);
      assertThat(refusal(key, v.message(), sig))
          .as("length %d", len)
          .isEqualTo(SignatureException.Reason.SIGNATURE_LENGTH);
    }
  }

  @Test
  void verificationKey_whenNot32Bytes_refusesAsKeyLength() {
    for (int len : new int[] {0, 31, 33, 64}) {
      assertThatThrownBy(() -> VerificationKey.of(new byte[len]))
          .isInstanceOfSatisfying(
              SignatureException.class,
              e -> assertThat(e.reason()).isEqualTo(SignatureException.Reason.KEY_LENGTH));
    }
  }

  @Test
  void verificationKey_onRandomBytes_acceptsOrRefusesTyped_neverThrowsOtherwise() {
    Random random = new Random(0xED25519L);
    int refused = 0;
    for (int n = 0; n < 2000; n++) {
      byte[] b = new byte[32];
      random.nextBytes(b);
      try {
        VerificationKey k = VerificationKey.of(b);
        assertThat(k.bytes()).isEqualTo(b);
      } catch (SignatureException e) {
        assertThat(e.reason()).isEqualTo(SignatureException.Reason.INVALID_KEY);
        refused++;
      }
    }
    // About half of all y coordinates have no x on the curve.
    assertThat(refused).as("seed 0xED25519: refused of 2000").isBetween(500, 1500);
  }

  @Test
  void verificationKey_whenYIsNotOnTheCurve_refusesAsInvalidKey() {
    byte[] two = new byte[32];
    two[0] = 2; // y = 2 has no x on edwards25519
    assertThatThrownBy(() -> VerificationKey.of(two))
        .isInstanceOfSatisfying(
            SignatureException.class,
            e -> assertThat(e.reason()).isEqualTo(SignatureException.Reason.INVALID_KEY));
  }

  @Test
  void verify_theSmallOrderForgery_isRefused() {
    // With A = R = the identity point and S = 0, the cofactorless equation [S]B = R + [k]A holds
    // for every message. A verifier that accepts the identity as a key accepts this forgery.
    byte[] identity = new byte[32];
    identity[0] = 1; // y = 1, x = 0
    byte[] forged = new byte[64];
    forged[0] = 1;
    byte[] msg = "anything at all".getBytes(java.nio.charset.StandardCharsets.UTF_8);
    try {
      VerificationKey key = VerificationKey.of(identity);
      assertThat(refusal(key, msg, forged)).isEqualTo(SignatureException.Reason.DOES_NOT_VERIFY);
    } catch (SignatureException e) {
      assertThat(e.reason()).isEqualTo(SignatureException.Reason.INVALID_KEY);
    }
  }

  @Test
  void verificationKey_whenSmallOrder_refusesAsInvalidKey() {
    // The eight small-order points of edwards25519 (y = 1, y = -1 and the order-4 and order-8
    // points) can never name a party: no secret scalar maps to them.
    String[] smallOrder = {
      "0100000000000000000000000000000000000000000000000000000000000000",
      "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
      "0000000000000000000000000000000000000000000000000000000000000000",
      "0000000000000000000000000000000000000000000000000000000000000080",
      "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05",
      "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85",
      "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",
      "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa",
    };
    List<String> accepted = new ArrayList<>();
    for (String hex : smallOrder) {
      try {
        VerificationKey.of(HEX.parseHex(hex));
        accepted.add(hex);
      } catch (SignatureException e) {
        assertThat(e.reason()).as(hex).isEqualTo(SignatureException.Reason.INVALID_KEY);
      }
    }
    assertThat(accepted).as("small-order keys accepted").isEmpty();
  }

  /** 2^255 − 19, the field's prime: a key's or an R's y is written below it (RFC 8032 §5.1.2). */
  private static final java.math.BigInteger P =
      java.math.BigInteger.TWO.pow(255).subtract(java.math.BigInteger.valueOf(19));

  /** The 32-byte point encoding of {@code y} (little-endian), with x's sign in bit 255. */
  private static byte[] pointEncoding(java.math.BigInteger y, boolean xNegative) {
    byte[] big = y.toByteArray();
    byte[] out = new byte[32];
    for (int i = 0; i < 32 && i < big.length; i++) {
      out[i] = big[big.length - 1 - i];
    }
    if (xNegative) {
      out[31] |= (byte) 0x80;
    }
    return out;
  }

  @Test
  void verificationKey_inANonCanonicalEncoding_refusesAsInvalidKey() {
    // SPEC.md 10.4: a key is the canonical encoding of its point. y = p + r for r in 0..18 still
    // fits in 255 bits; twelve of those r are y values of curve points, ten of them of large order
    // (r = 3, 4, 5, 6, 9, 10, 14, 15, 16, 18), so a decoder that reduced y modulo p would take
    // each as a second 32-byte name, and a second did:key, for the key with y = r. And x = 0 (y =
    // 1 or y = p − 1) has no negative: those two with the sign bit set are no encoding at all.
    List<String> accepted = new ArrayList<>();
    for (int r = 0; r <= 18; r++) {
      for (boolean negative : new boolean[] {false, true}) {
        byte[] key = pointEncoding(P.add(java.math.BigInteger.valueOf(r)), negative);
        acceptedOrInvalid(key, accepted);
      }
    }
    acceptedOrInvalid(pointEncoding(java.math.BigInteger.ONE, true), accepted);
    acceptedOrInvalid(pointEncoding(P.subtract(java.math.BigInteger.ONE), true), accepted);
    assertThat(accepted).as("non-canonical keys accepted").isEmpty();
  }

  private static void acceptedOrInvalid(byte[] key, List<String> accepted) {
    try {
      VerificationKey.of(key);
      accepted.add(HEX.formatHex(key));
    } catch (SignatureException e) {
      assertThat(e.reason())
          .as(HEX.formatHex(key))
          .isEqualTo(SignatureException.Reason.INVALID_KEY);
    }
  }

  @Test
  void verify_whenRIsNotCanonicallyEncoded_refuses_thoughTheSameRCanonicallyEncodedVerifies()
      throws Exception {
    // Made by hand with TEST 1's key over "mesh": R is the identity point, and S = k·a mod L with
    // k = SHA-512(R's bytes ‖ A ‖ M) over the R bytes as written, so [S]B = R + [k]A holds for each
    // encoding of R. RFC 8032 §5.1.7 (and SPEC.md 30 §4: the verifier refuses a non-canonical R)
    // has decoding fail first for y = p + 1 and for x = 0 marked negative; only the canonical one
    // verifies, which shows the refusals are the encoding's and not the point's.
    VerificationKey key = VerificationKey.of(vector("TEST 1").publicKey());
    byte[] msg = "mesh".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    key.verify(
        msg,
        HEX.parseHex(
            "0100000000000000000000000000000000000000000000000000000000000000"
                + "ef3529237971f3acd3aaa5bc6280b553bb9f3d4400a7da3db6f5969422fa3901"));
    byte[] yPlusP =
        HEX.parseHex(
            "eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f"
                + "9f82be2d119223ce6f4627406841818879e321fc50dc8a672236ee0e75a22508");
    byte[] negativeZero =
        HEX.parseHex(
            "0100000000000000000000000000000000000000000000000000000000000080"
                + "7b74cf17c4e3e12e917015e211e0515a2684e1dc06030623d2c521e5a2292f08");
    assertThat(refusal(key, msg, yPlusP)).isEqualTo(SignatureException.Reason.DOES_NOT_VERIFY);
    assertThat(refusal(key, msg, negativeZero))
        .isEqualTo(SignatureException.Reason.DOES_NOT_VERIFY);
  }

  @Test
  void verify_isTheCofactoredEquation_soAnROfOrderEightMadeWithTheKeysHolderVerifies()
      throws Exception {
    // SPEC.md 10.5: an R of small order is not refused. With R the identity (the test above) both
    // equations of RFC 8032 §5.1.7 hold; with this R, a point of order 8, only the cofactored one,
    // [8][S]B = [8]R + [8][k]A, does. Made by hand as above, with TEST 1's key over "mesh": S = k·a
    // mod L, k = SHA-512(R ‖ A ‖ M). A verifier with the cofactorless check (the JDK's Ed25519,
    // OpenSSL's) refuses these bytes, so a change to one would change which signatures verify.
    VerificationKey key = VerificationKey.of(vector("TEST 1").publicKey());
    byte[] msg = "mesh".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    key.verify(
        msg,
        HEX.parseHex(
            "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a"
                + "7e8efc3ba62c118504839bc38f2f752b6fa86e6da3f242318c97d5bc6fa1470a"));
  }

  @Test
  void signingKey_toString_neverShowsTheSeed() {
    Vector v = vector("TEST 1");
    SigningKey key = SigningKey.fromSeed(v.secret());
    String text = key.toString();
    assertThat(text.toLowerCase()).doesNotContain(HEX.formatHex(v.secret()));
    assertThat(text.toLowerCase()).doesNotContain(HEX.formatHex(v.secret()).substring(0, 8));
    assertThat(text).doesNotContain(java.util.Base64.getEncoder().encodeToString(v.secret()));
    assertThat(text).contains(HEX.formatHex(v.publicKey()));
  }

  @Test
  void signingKey_seedIsCopiedInAndOut() {
    byte[] seed = vector("TEST 1").secret().clone();
    SigningKey key = SigningKey.fromSeed(seed);
    seed[0] ^= 1;
    assertThat(key.exportSeed()).isEqualTo(vector("TEST 1").secret());
    key.exportSeed()[0] ^= 1;
    assertThat(key.exportSeed()).isEqualTo(vector("TEST 1").secret());
  }

  @Test
  void signingKey_whenSeedIsNot32Bytes_refuses() {
    assertThatThrownBy(() -> SigningKey.fromSeed(new byte[31]))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void generatedKeys_signAndVerify_andDiffer() throws Exception {
    SecureRandom random = new SecureRandom();
    SigningKey a = SigningKey.generate(random);
    SigningKey b = SigningKey.generate(random);
    assertThat(a.verificationKey()).isNotEqualTo(b.verificationKey());
    byte[] msg = "mesh/1".getBytes(java.nio.charset.StandardCharsets.UTF_8);
    a.verificationKey().verify(msg, a.sign(msg));
    assertThat(refusal(b.verificationKey(), msg, a.sign(msg)))
        .isEqualTo(SignatureException.Reason.DOES_NOT_VERIFY);
  }

  @Test
  void deriveSubkey_isStablePerPurposeAndKey() {
    SigningKey key = SigningKey.fromSeed(vector("TEST 1").secret());
    assertThat(key.deriveSubkey("a")).isEqualTo(key.deriveSubkey("a")).hasSize(32);
    assertThat(key.deriveSubkey("a")).isNotEqualTo(key.deriveSubkey("b"));
    assertThat(key.deriveSubkey("a"))
        .isNotEqualTo(SigningKey.fromSeed(vector("TEST 2").secret()).deriveSubkey("a"));
    assertThat(key.deriveSubkey("a")).isEqualTo(Blake3.deriveKey("a", vector("TEST 1").secret()));
  }

  /**
   * Regression: a seed in upper case was taken, while every other hex mesh-java reads (ids, chains,
   * revocations) refused it; now a key file is held to the same rule, lowercase (LowercaseHex).
   */
  @Test
  void fromSeedHex_readsAKeyFilesText_andRefusesAnythingElse() {
    SigningKey key = SigningKey.generate(new SecureRandom());
    String hex = HexFormat.of().formatHex(key.exportSeed());
    assertThat(SigningKey.fromSeedHex("  " + hex + "\n").verificationKey())
        .isEqualTo(key.verificationKey());
    String upper = "AB" + hex.substring(2);
    for (String bad :
        new String[] {"", hex.substring(1), hex + "0", "zz" + hex.substring(2), upper}) {
      assertThatThrownBy(() -> SigningKey.fromSeedHex(bad))
          .as("%s", bad)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("an Ed25519 seed is ")
          .hasMessageContaining("lowercase hex")
          .hasMessageNotContaining(hex.substring(2));
    }
    assertThatThrownBy(() -> SigningKey.fromSeedHex(upper))
        .hasMessage(
            "an Ed25519 seed is not lowercase hex: upper-case 'A' at index 0 (write it in lower"
                + " case)");
  }
}
