package org.meshjava.receipt.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.meshjava.core.cbor.CborBytes;
import org.meshjava.core.cbor.CborMap;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.core.crypto.VerificationKey;
import org.meshjava.receipt.Jcr1;
import org.meshjava.receipt.ReceiptException;
import org.meshjava.receipt.ReceiptException.Reason;
import org.meshjava.receipt.SharedVectors;

/**
 * The COSE working group's Sign1 examples (vendored as test resources under {@code
 * vectors/cose-wg}), run as data. EdDSA-01 is the one Ed25519 Sign1 there: our COSE layer must
 * verify and reproduce it exactly. JCR-1 is a strict profile of COSE, so {@link Jcr1#open} must
 * refuse every file, EdDSA-01 included, and say why.
 */
class CoseVectorsTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HexFormat HEX = HexFormat.of();
  private static final String EDDSA_01 = "eddsa-examples_eddsa-sig-01.json";

  /**
   * The reason each vector must be refused with, worked out from Jcr1's check order: canonical
   * CBOR, tag, shape, algorithm, header keys, kid, unprotected header, signature, payload.
   */
  private static final Map<String, Reason> EXPECTED_REFUSAL =
      Map.ofEntries(
          // alg -8 passes; ctyp (label 3) in the protected header fails before its kid "11" is
          // read.
          Map.entry(EDDSA_01, Reason.UNEXPECTED_HEADER),
          // Ed448 also uses alg -8, so the algorithm check passes; its kid is unprotected.
          Map.entry("eddsa-examples_eddsa-sig-02.json", Reason.BAD_KID),
          // tag 998
          Map.entry("sign1-tests_sign-fail-01.json", Reason.WRONG_TAG),
          // ES256 (-7); the changed payload is never reached
          Map.entry("sign1-tests_sign-fail-02.json", Reason.UNSUPPORTED_ALGORITHM),
          // alg -999
          Map.entry("sign1-tests_sign-fail-03.json", Reason.UNSUPPORTED_ALGORITHM),
          // alg "unknown" (text)
          Map.entry("sign1-tests_sign-fail-04.json", Reason.UNSUPPORTED_ALGORITHM),
          // ES256 with an added ctyp: the algorithm is checked before the header keys
          Map.entry("sign1-tests_sign-fail-06.json", Reason.UNSUPPORTED_ALGORITHM),
          // ES256 with ctyp removed
          Map.entry("sign1-tests_sign-fail-07.json", Reason.UNSUPPORTED_ALGORITHM),
          // empty protected header: alg only in the unprotected one
          Map.entry("sign1-tests_sign-pass-01.json", Reason.UNSUPPORTED_ALGORITHM),
          // ES256 with external AAD
          Map.entry("sign1-tests_sign-pass-02.json", Reason.UNSUPPORTED_ALGORITHM),
          // no tag at all
          Map.entry("sign1-tests_sign-pass-03.json", Reason.WRONG_TAG));

  private static JsonNode load(String file) throws IOException {
    return JSON.readTree(SharedVectors.folder("cose-wg").resolve(file).toFile());
  }

  private static byte[] hex(JsonNode node) {
    return HEX.parseHex(node.asText().toLowerCase(java.util.Locale.ROOT));
  }

  static Stream<String> vectorFiles() throws IOException {
    try (Stream<Path> files = Files.list(SharedVectors.folder("cose-wg"))) {
      return files
          .map(p -> p.getFileName().toString())
          .filter(n -> n.endsWith(".json"))
          .sorted()
          .toList()
          .stream();
    }
  }

  @Test
  void expectationTable_coversExactlyTheVectorFiles() throws IOException {
    Set<String> files = new TreeSet<>(vectorFiles().toList());
    assertThat(files).isEqualTo(new TreeSet<>(EXPECTED_REFUSAL.keySet()));
  }

  @Test
  void eddsaSig01_decodesAndVerifiesWithTheVectorKey() throws Exception {
    JsonNode v = load(EDDSA_01);
    CoseSign1 cose = CoseSign1.decode(hex(v.at("/output/cbor")));
    VerificationKey key = VerificationKey.of(hex(v.at("/input/sign0/key/x_hex")));

    cose.verify(key);

    assertThat(new String(cose.payload(), StandardCharsets.UTF_8))
        .isEqualTo(v.at("/input/plaintext").asText());
  }

  @Test
  void eddsaSig01_toBeSignEqualsOurSigStructure() throws Exception {
    JsonNode v = load(EDDSA_01);
    CoseSign1 cose = CoseSign1.decode(hex(v.at("/output/cbor")));

    assertThat(CoseSign1.sigStructure(cose.protectedHeader(), cose.payload()))
        .isEqualTo(hex(v.at("/intermediates/ToBeSign_hex")));
  }

  @Test
  void eddsaSig01_signWithTheVectorSeed_reproducesOutputByteForByte() throws Exception {
    JsonNode v = load(EDDSA_01);
    // The vector's protected header {1: -8, 3: 0} (alg EdDSA, ctyp 0) and unprotected {4: h'3131'}.
    byte[] protectedHeader = HEX.parseHex("a201270300");
    CborMap unprotected = CborMap.builder().put(4, CborBytes.of(HEX.parseHex("3131"))).build();
    byte[] payload = v.at("/input/plaintext").asText().getBytes(StandardCharsets.UTF_8);
    SigningKey key = SigningKey.fromSeed(hex(v.at("/input/sign0/key/d_hex")));

    CoseSign1 ours = CoseSign1.sign(protectedHeader, unprotected, payload, key);

    assertThat(HEX.formatHex(ours.encode())).isEqualTo(HEX.formatHex(hex(v.at("/output/cbor"))));
    assertThat(key.verificationKey().bytes()).isEqualTo(hex(v.at("/input/sign0/key/x_hex")));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("vectorFiles")
  void jcr1Open_refusesEveryCoseVector_withTheReasonItsCheckOrderGives(String file)
      throws IOException {
    byte[] bytes = hex(load(file).at("/output/cbor"));

    Throwable thrown = catchThrowable(() -> Jcr1.open(bytes));

    assertThat(thrown).as(file + " must be refused").isInstanceOf(ReceiptException.class);
    assertThat(((ReceiptException) thrown).reason())
        .as(file + ": " + thrown.getMessage())
        .isEqualTo(EXPECTED_REFUSAL.get(file));
  }
}
