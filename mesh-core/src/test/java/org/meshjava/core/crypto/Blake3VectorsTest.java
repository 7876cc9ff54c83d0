package org.meshjava.core.crypto;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.meshjava.core.SharedVectors;

/**
 * The official BLAKE3 test vectors (vendored as the test resource {@code
 * vectors/blake3/test_vectors.json}) in all three modes, at the default 32-byte length and at the
 * full extended length each case gives. Every failing case is reported, not only the first.
 */
public class Blake3VectorsTest {
  private static final HexFormat HEX = HexFormat.of();

  private static JsonNode vectors;
  private static byte[] key;
  private static String context;

  @BeforeAll
  static void load() throws Exception {
    vectors = new ObjectMapper().readTree(SharedVectors.read("blake3/test_vectors.json"));
    key = vectors.get("key").asText().getBytes(StandardCharsets.US_ASCII);
    context = vectors.get("context_string").asText();
  }

  /** The vectors' input: the repeating sequence 0, 1, …, 250, 0, 1, … of the given length. */
  public static byte[] input(int length) {
    byte[] b = new byte[length];
    for (int i = 0; i < length; i++) {
      b[i] = (byte) (i % 251);
    }
    return b;
  }

  private interface Mode {
    Blake3.Hasher hasher();
  }

  private static void checkMode(String field, Mode mode, List<String> failures) {
    for (JsonNode c : vectors.get("cases")) {
      int len = c.get("input_len").asInt();
      byte[] expected = HEX.parseHex(c.get(field).asText());
      byte[] in = input(len);

      byte[] extended = mode.hasher().update(in).finish(expected.length);
      if (!Arrays.equals(extended, expected)) {
        failures.add(field + " input_len " + len + " extended output differs");
      }
      byte[] standard = mode.hasher().update(in).finish();
      if (!Arrays.equals(standard, Arrays.copyOf(expected, Blake3.OUT_LEN))) {
        failures.add(field + " input_len " + len + " 32-byte output differs");
      }
      // Streaming in odd pieces must not change the answer (chunks are 1024 bytes).
      Blake3.Hasher h = mode.hasher();
      for (int off = 0; off < len; ) {
        int n = Math.min(len - off, 1 + (off * 7) % 1029);
        h.update(in, off, n);
        off += n;
      }
      if (!Arrays.equals(h.finish(), Arrays.copyOf(expected, Blake3.OUT_LEN))) {
        failures.add(field + " input_len " + len + " streamed output differs");
      }
    }
  }

  @Test
  void vectors_haveTheCasesWeExpect() {
    // A parsing mistake that drops cases would otherwise pass vacuously.
    assertThat(vectors.get("cases").size()).isGreaterThanOrEqualTo(30);
    assertThat(key).hasSize(32);
    assertThat(vectors.get("cases").get(0).get("input_len").asInt()).isZero();
  }

  @Test
  void hash_matchesEveryOfficialVector() {
    List<String> failures = new ArrayList<>();
    checkMode("hash", Blake3::newHasher, failures);
    assertThat(failures).isEmpty();
  }

  @Test
  void keyedHash_matchesEveryOfficialVector() {
    List<String> failures = new ArrayList<>();
    checkMode("keyed_hash", () -> Blake3.newKeyedHasher(key), failures);
    assertThat(failures).isEmpty();
  }

  @Test
  void deriveKey_matchesEveryOfficialVector() {
    List<String> failures = new ArrayList<>();
    checkMode("derive_key", () -> Blake3.newDeriveKeyHasher(context), failures);
    assertThat(failures).isEmpty();
  }

  @Test
  void oneShotHelpers_agreeWithTheVectors() {
    List<String> failures = new ArrayList<>();
    for (JsonNode c : vectors.get("cases")) {
      int len = c.get("input_len").asInt();
      byte[] in = input(len);
      byte[] hash = Arrays.copyOf(HEX.parseHex(c.get("hash").asText()), 32);
      byte[] keyed = Arrays.copyOf(HEX.parseHex(c.get("keyed_hash").asText()), 32);
      byte[] derived = Arrays.copyOf(HEX.parseHex(c.get("derive_key").asText()), 32);
      int half = len / 2;
      if (!Arrays.equals(
          Blake3.hash(Arrays.copyOf(in, half), Arrays.copyOfRange(in, half, len)), hash)) {
        failures.add("hash(parts) input_len " + len);
      }
      if (!Arrays.equals(Blake3.keyedHash(key, in), keyed)) {
        failures.add("keyedHash input_len " + len);
      }
      if (!Arrays.equals(Blake3.deriveKey(context, in), derived)) {
        failures.add("deriveKey input_len " + len);
      }
    }
    assertThat(failures).isEmpty();
  }
}
