package org.meshjava.receipt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.meshjava.core.DecisionShape;
import org.meshjava.core.DenialLabel;
import org.meshjava.core.Energy;
import org.meshjava.core.Fidelity;
import org.meshjava.core.OutcomeCounters;
import org.meshjava.core.WeightsBinding;
import org.meshjava.core.cbor.CanonicalCbor;
import org.meshjava.core.cbor.CborMap;
import org.meshjava.core.cbor.CborText;
import org.meshjava.core.cbor.CborValue;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.receipt.internal.SignedCoreSink;

/**
 * The seal writes a receipt's signed core straight to bytes ({@link SignedCoreBytes}) in the order
 * {@link SignedCore#write} lists the fields; the JSON view writes the same list. Both must be the
 * canonical encoding of the core as a map, byte for byte, or every receipt sealed after the change
 * would differ from one sealed before it.
 */
class SignedCoreBytesTest {
  private static final SigningKey KEY = TestReceipts.KEY;

  @Test
  void writtenCore_isTheMapsCanonicalEncoding_forEveryShapeOfReceipt() {
    for (MeshReceipt r : everyShape()) {
      assertSameBytes(r);
    }
  }

  /**
   * A generation and a decision receipt, each bare and with every optional part (grant, weights,
   * fidelity report, measured energy, breach, output commitment), in that order.
   */
  static List<MeshReceipt> everyShape() {
    return List.of(
        TestReceipts.genesis(TestReceipts.generationDraft()),
        TestReceipts.genesis(DecisionReceiptTest.decisionDraft()),
        TestReceipts.genesis(
            DecisionReceiptTest.decisionDraft()
                .perOptionFigure(true)
                .grantId(Optional.of(TestReceipts.id("grant")))
                .grantBreach(Optional.of(DenialLabel.BUDGET_EXHAUSTED))),
        TestReceipts.genesis(
            TestReceipts.generationDraft()
                .grantId(Optional.of(TestReceipts.id("grant")))
                .weights(Optional.of(new WeightsBinding(TestReceipts.id("w"), "bf16")))
                .fidelityReport(Optional.of(new FidelityReport(Fidelity.F3, Fidelity.F2)))
                .fidelityMet(true)
                .energy(Energy.measured(9_999, 12_345))
                .grantBreach(Optional.of(DenialLabel.CAVEAT_UNSATISFIED))
                .outputCommitment(Optional.of(TestReceipts.id("commitment")))));
  }

  @Test
  void writtenCore_isTheMapsCanonicalEncoding_overRandomReceipts() {
    SplittableRandom random = new SplittableRandom(37);
    int built = 0;
    for (int i = 0; i < 1_000; i++) {
      MeshReceipt r;
      try {
        r = randomReceipt(random);
      } catch (IllegalArgumentException e) {
        continue; // a combination the receipt's own rules refuse: nothing to seal
      }
      built++;
      assertSameBytes(r);
    }
    assertThat(built).as("random receipts the rules accept").isGreaterThan(300);
  }

  /**
   * A name with an unpaired surrogate has no UTF-8. Building the map refused it ({@code CborText});
   * the bytes written without the map must refuse it too, not sign {@code '?'} in its place, which
   * would seal a core that opens to another receipt than the one served.
   */
  @Test
  void aNameWithAnUnpairedSurrogate_isRefused_notSignedAsAnotherName() {
    char high = (char) 0xD83D;
    char low = (char) 0xDE00;
    for (String name : List.of("a" + high + "b", String.valueOf(low), "model-" + high, "é" + low)) {
      MeshReceipt r =
          TestReceipts.genesis(TestReceipts.generationDraft().backend(name).route("r-" + name));
      assertThatThrownBy(r::toSignedCore).isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> SignedCoreBytes.of(r))
          .as(name)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("unpaired surrogate");
      assertThatThrownBy(r::encodeSignedCore).isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> Jcr1.seal(r, KEY)).isInstanceOf(IllegalArgumentException.class);
    }
  }

  /**
   * A text's head is first written for its length in chars and written again for its UTF-8 length
   * when it is not ASCII: the two may take heads of different sizes (12 chars of 24 bytes, 40 000
   * chars of 80 000 bytes), and a name may pass 64 KiB.
   */
  @Test
  void namesWhoseUtf8HeadIsLongerThanTheirCharCount_andNamesOver64KiB_encodeAsTheMap() {
    List<String> names =
        List.of(
            "é".repeat(12),
            "é".repeat(11) + "x",
            "😀".repeat(6),
            "é".repeat(40_000),
            "x".repeat(70_000),
            "ü".repeat(32_768),
            "x".repeat(65_535) + "é");
    for (String name : names) {
      MeshReceipt r =
          TestReceipts.genesis(
              TestReceipts.generationDraft().backend(name).recipe(name).route("r " + name));
      assertSameBytes(r);
    }
  }

  /**
   * Read back by a reader written here from RFC 8949 alone (not {@code CanonicalCbor}): one map of
   * definite length whose every head is in its shortest form, text keys in length-then-bytewise
   * order without repeats, strict UTF-8, and exactly the fields {@link SignedCore#write} lists.
   */
  @Test
  void writtenCore_readsBackField_forField_underAnIndependentReader() {
    SplittableRandom random = new SplittableRandom(2026);
    int read = 0;
    for (int i = 0; i < 300; i++) {
      MeshReceipt r;
      try {
        r = randomReceipt(random);
      } catch (IllegalArgumentException e) {
        continue;
      }
      assertThat(List.copyOf(new IndependentReader(SignedCoreBytes.of(r)).core().entrySet()))
          .as(r.toString())
          .isEqualTo(fields(r));
      read++;
    }
    assertThat(read).isGreaterThan(100);
  }

  /** A reader of the core's three kinds of value, each head checked to be shortest. */
  private static final class IndependentReader {
    private final byte[] in;
    private int at;

    IndependentReader(byte[] in) {
      this.in = in;
    }

    Map<String, Object> core() {
      int major = (in[at] & 0xff) >>> 5;
      assertThat(major).as("the core is a map").isEqualTo(5);
      long n = argument();
      Map<String, Object> out = new LinkedHashMap<>();
      byte[] previous = null;
      for (long i = 0; i < n; i++) {
        assertThat((in[at] & 0xff) >>> 5).as("key %d is text", i).isEqualTo(3);
        byte[] key = content();
        if (previous != null) {
          int order =
              previous.length != key.length
                  ? Integer.compare(previous.length, key.length)
                  : Arrays.compareUnsigned(previous, key);
          assertThat(order).as("key %d follows the one before it", i).isNegative();
        }
        previous = key;
        String name = utf8(key);
        int valueMajor = (in[at] & 0xff) >>> 5;
        Object value =
            switch (valueMajor) {
              case 0 -> argument();
              case 2 -> HexFormat.of().formatHex(content());
              case 3 -> utf8(content());
              default -> throw new AssertionError("major type " + valueMajor + " at " + name);
            };
        out.put(name, value);
      }
      assertThat(at).as("nothing after the map").isEqualTo(in.length);
      return out;
    }

    private byte[] content() {
      long n = argument();
      byte[] b = Arrays.copyOfRange(in, at, Math.toIntExact(at + n));
      at += (int) n;
      return b;
    }

    /** The head's argument, which must not fit a shorter head. */
    private long argument() {
      int info = in[at++] & 0x1f;
      if (info < 24) {
        return info;
      }
      int size = 1 << (info - 24);
      assertThat(size).as("a definite head").isLessThanOrEqualTo(8);
      long v = 0;
      for (int k = 0; k < size; k++) {
        v = (v << 8) | (in[at++] & 0xff);
      }
      long smallest = size == 1 ? 24 : 1L << (4 * size);
      assertThat(Long.compareUnsigned(v, smallest)).as("shortest head for %d", v).isNotNegative();
      return v;
    }

    private static String utf8(byte[] b) {
      try {
        return StandardCharsets.UTF_8
            .newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT)
            .decode(ByteBuffer.wrap(b))
            .toString();
      } catch (CharacterCodingException e) {
        throw new AssertionError("not UTF-8", e);
      }
    }
  }

  @Test
  void writtenCore_listsTheFieldsInCanonicalKeyOrder() {
    MeshReceipt r = randomFull();
    List<CborValue> written = new ArrayList<>();
    for (Map.Entry<String, Object> field : fields(r)) {
      written.add(new CborText(field.getKey()));
    }
    List<CborValue> sorted = new ArrayList<>();
    for (CborMap.Entry e : r.toSignedCore().entries()) {
      sorted.add(e.key());
    }
    assertThat(written).isEqualTo(sorted);
  }

  @Test
  void sealedEnvelope_signsTheWrittenBytes_andOpensToTheSameCore() throws Exception {
    SplittableRandom random = new SplittableRandom(7);
    for (int i = 0; i < 50; i++) {
      MeshReceipt r;
      try {
        r = randomReceipt(random);
      } catch (IllegalArgumentException e) {
        continue;
      }
      SealedReceipt sealed = Jcr1.seal(r, KEY);
      SealedReceipt opened = Jcr1.open(sealed.envelope());
      assertThat(opened.receipt()).isEqualTo(r);
      assertThat(opened.signedCore().encode()).isEqualTo(r.toSignedCore().encode());
      assertThat(sealed.signedCore()).isEqualTo(opened.signedCore());
    }
  }

  /** The fields {@link SignedCore#write} lists, in its order; a byte string's value as hex. */
  private static List<Map.Entry<String, Object>> fields(MeshReceipt r) {
    List<Map.Entry<String, Object>> fields = new ArrayList<>();
    SignedCore.write(
        r,
        new SignedCoreSink<RuntimeException>() {
          @Override
          public void text(String key, String value) {
            fields.add(Map.entry(key, value));
          }

          @Override
          public void uint(String key, long value) {
            fields.add(Map.entry(key, value));
          }

          @Override
          public void bytes(String key, byte[] value) {
            fields.add(Map.entry(key, HexFormat.of().formatHex(value)));
          }
        });
    return fields;
  }

  private static void assertSameBytes(MeshReceipt r) {
    byte[] viaMap = r.toSignedCore().encode();
    assertThat(SignedCoreBytes.of(r)).as(r.toString()).isEqualTo(viaMap);
    assertThat(r.encodeSignedCore()).isEqualTo(viaMap);
    assertThat(CanonicalCbor.encode(r.toSignedCore())).isEqualTo(viaMap);
  }

  private static MeshReceipt randomFull() {
    return TestReceipts.genesis(
        TestReceipts.generationDraft()
            .grantId(Optional.of(TestReceipts.id("g")))
            .weights(Optional.of(new WeightsBinding(TestReceipts.id("w"), "q4")))
            .fidelityReport(Optional.of(new FidelityReport(Fidelity.F2, Fidelity.F2)))
            .energy(Energy.measured(1, 2))
            .grantBreach(Optional.of(DenialLabel.BUDGET_EXHAUSTED))
            .outputCommitment(Optional.of(TestReceipts.id("c"))));
  }

  /** Every optional part present or not, integers across every head size, names beyond ASCII. */
  private static MeshReceipt randomReceipt(SplittableRandom random) {
    String[] names = {"tiny", "a", "modèle-ünï", "モデル", "x".repeat(23), "y".repeat(300), "😀 b"};
    boolean decision = random.nextBoolean();
    MeshReceipt.Builder b =
        MeshReceipt.builder()
            .requestId(TestReceipts.id("r" + random.nextLong()))
            .backend(names[random.nextInt(names.length)])
            .recipe(names[random.nextInt(names.length)])
            .route(names[random.nextInt(names.length)])
            .counters(counters(random))
            .fidelityFloor(Fidelity.of(random.nextInt(5)))
            .energy(
                random.nextBoolean()
                    ? Energy.measured(uint(random), uint(random))
                    : Energy.estimated(uint(random)))
            .nonce(TestReceipts.nonce(random.nextInt(256)))
            .chain(
                uint(random),
                random.nextBoolean() ? Optional.of(TestReceipts.id("p")) : Optional.empty())
            .steward(TestReceipts.did(KEY));
    if (random.nextBoolean()) {
      b.grantId(Optional.of(TestReceipts.id("g" + random.nextInt())));
      if (random.nextBoolean()) {
        b.grantBreach(
            Optional.of(
                random.nextBoolean()
                    ? DenialLabel.BUDGET_EXHAUSTED
                    : DenialLabel.CAVEAT_UNSATISFIED));
      }
    }
    if (random.nextBoolean()) {
      b.weights(
          Optional.of(
              new WeightsBinding(
                  TestReceipts.id("w" + random.nextInt()),
                  PRECISIONS[random.nextInt(PRECISIONS.length)])));
    }
    Fidelity floor = Fidelity.of(random.nextInt(5));
    b.fidelityFloor(floor);
    if (random.nextBoolean()) {
      Fidelity delivered = Fidelity.of(random.nextInt(5));
      b.fidelityReport(Optional.of(new FidelityReport(Fidelity.of(random.nextInt(5)), delivered)));
      b.fidelityMet(delivered.meets(floor));
    } else {
      b.fidelityMet(random.nextBoolean());
    }
    if (decision) {
      long questions = 1 + random.nextInt(1_000);
      b.decision(
          Optional.of(
              new DecisionShape(questions, questions + random.nextInt(70_000), u32(random))));
      b.perOptionFigure(random.nextBoolean());
    } else if (random.nextBoolean()) {
      b.outputCommitment(Optional.of(TestReceipts.id("c" + random.nextInt())));
    }
    return b.build();
  }

  /** An unsigned integer whose head takes 1, 2, 3, 5 or 9 bytes, with the edges of each. */
  private static long uint(SplittableRandom random) {
    long[] edges = {0, 23, 24, 255, 256, 65_535, 65_536, 0xffff_ffffL, 0x1_0000_0000L};
    return switch (random.nextInt(3)) {
      case 0 -> edges[random.nextInt(edges.length)];
      case 1 -> random.nextLong(1L << (1 + random.nextInt(62)));
      default -> random.nextLong(Long.MAX_VALUE);
    };
  }

  private static final String[] PRECISIONS = {"bf16", "q4", "fp32", "int8"};

  private static OutcomeCounters counters(SplittableRandom random) {
    long proposed = u32(random);
    return new OutcomeCounters(
        u32(random),
        u32(random),
        u32(random),
        u32(random),
        proposed,
        proposed == 0 ? 0 : random.nextLong(proposed + 1));
  }

  private static long u32(SplittableRandom random) {
    return random.nextBoolean() ? random.nextLong(0x1_0000_0000L) : random.nextInt(30);
  }
}
