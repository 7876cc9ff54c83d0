package org.meshjava.core.cbor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Decoding with a {@link CborItemMemo} gives what decoding without one gives, value for value and
 * refusal for refusal (rule, offset and words); only bytes equal to an item read before are taken
 * from it; and it stays within its bounds.
 */
class CborItemMemoTest {
  private static final HexFormat HEX = HexFormat.of();

  /** Limits that held items can take a decode past, so that the memo must read them in full. */
  private static final CborLimits TIGHT = new CborLimits(3, 1 << 20, 12);

  /** What one decode gave: the value's encoding, or the refusal's rule, offset and words. */
  private static String outcome(byte[] in, CborLimits limits, CborItemMemo memo) {
    try {
      CborValue v =
          memo == null ? CanonicalCbor.decode(in, limits) : CanonicalCbor.decode(in, limits, memo);
      return "decoded " + HEX.formatHex(v.encode());
    } catch (CborDecodeException e) {
      return "refused " + e.rule() + " at " + e.offset() + ": " + e.getMessage();
    }
  }

  @Test
  void aWarmDecode_givesWhatAColdOneGives_forRandomMutatedAndNonCanonicalInputs() throws Exception {
    long seed = new Random().nextLong();
    Random random = new Random(seed);
    RandomCbor gen = new RandomCbor(random, 4);
    List<byte[]> valid = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      List<CborValue> items = new ArrayList<>();
      for (int n = random.nextInt(4); n >= 0; n--) {
        items.add(gen.value());
      }
      valid.add(new CborArray(items).encode());
    }
    List<byte[]> inputs = new ArrayList<>(valid);
    for (byte[] v : valid) {
      for (int m = 0; m < 3; m++) {
        inputs.add(mutant(v, random));
      }
      CborValue value = CanonicalCbor.decode(v);
      int heads = NonCanonicalWriter.countHeadsAndMaps(value)[0];
      NonCanonicalWriter.write(value, new NonCanonicalWriter.Widen(random.nextInt(heads), 8))
          .ifPresent(variant -> inputs.add(variant.bytes()));
    }
    for (CborLimits limits : List.of(CborLimits.DEFAULT, TIGHT)) {
      CborItemMemo memo = new CborItemMemo(2, 4096, 1_000, 10_000);
      for (byte[] v : valid) {
        outcome(v, CborLimits.DEFAULT, memo);
      }
      assertThat(memo.size()).as("seed %d: items held", seed).isPositive();
      for (int i = 0; i < inputs.size(); i++) {
        byte[] in = inputs.get(i);
        int n = i;
        // Described only on failure: the hex of every input, written eagerly, was most of the time.
        assertThat(outcome(in, limits, memo))
            .as(() -> "seed %d, %s, input %d: %s".formatted(seed, limits, n, HEX.formatHex(in)))
            .isEqualTo(outcome(in, limits, null));
      }
    }
  }

  @Test
  void anItemMetAgain_isTheValueReadTheFirstTime() throws Exception {
    CborItemMemo memo = new CborItemMemo(2, 4096, 100, 100);
    CborMap link = CborMap.builder().put("grant", new CborText("x")).put("n", 7).build();
    byte[] first = new CborArray(List.of(link, new CborInt(1))).encode();
    byte[] second = new CborArray(List.of(link, new CborInt(2))).encode();

    CborValue a = CanonicalCbor.decode(first, CborLimits.DEFAULT, memo);
    CborValue b = CanonicalCbor.decode(second, CborLimits.DEFAULT, memo);

    assertThat(((CborArray) b).items().get(0)).isSameAs(((CborArray) a).items().get(0));
    assertThat(b).isEqualTo(CanonicalCbor.decode(second));
  }

  /**
   * A memo that keeps items of any size ({@code maxEncoded} at {@link Integer#MAX_VALUE}) still
   * finds an item past the input's first byte: its search must not overflow the end it looks to.
   */
  @Test
  void aMemoOfItemsOfAnySize_findsAnItemMetAgain() throws Exception {
    CborItemMemo memo = new CborItemMemo(2, Integer.MAX_VALUE, 100, 100);
    byte[] in = new CborArray(List.of(new CborInt(0), CborBytes.of(new byte[] {1, 2}))).encode();

    CborValue a = CanonicalCbor.decode(in, CborLimits.DEFAULT, memo);
    CborValue b = CanonicalCbor.decode(in, CborLimits.DEFAULT, memo);

    assertThat(((CborArray) b).items().get(1)).isSameAs(((CborArray) a).items().get(1));
  }

  /**
   * Hostile: the same map with its head's count written in two bytes (an encoding of an equal value
   * that is not canonical) must be read, and refused, not taken as the held canonical one.
   */
  @Test
  void anotherEncodingOfAHeldItemsValue_isReadInFull_andRefused() throws Exception {
    CborItemMemo memo = new CborItemMemo(2, 4096, 100, 100);
    CborMap link = CborMap.builder().put("a", 1).put("b", 2).build();
    CborArray outer = new CborArray(List.of(link));
    CanonicalCbor.decode(outer.encode(), CborLimits.DEFAULT, memo);
    NonCanonicalWriter.Variant widened =
        NonCanonicalWriter.write(outer, new NonCanonicalWriter.Widen(1, 1)).orElseThrow();

    assertThatThrownBy(() -> CanonicalCbor.decode(widened.bytes(), CborLimits.DEFAULT, memo))
        .isInstanceOfSatisfying(
            CborDecodeException.class,
            e -> {
              assertThat(e.rule()).isEqualTo(CborRule.NON_SHORTEST);
              assertThat(e.offset()).isEqualTo(widened.offset());
            });
  }

  @Test
  void aHeldItemThatWouldPassTheLimits_isRefusedWhereTheDecodeWithoutTheMemoRefusesIt() {
    CborItemMemo memo = new CborItemMemo(2, 4096, 100, 100);
    CborValue deep = new CborArray(List.of(new CborArray(List.of(new CborArray(List.of())))));
    List<CborValue> many = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      many.add(new CborInt(i));
    }
    byte[] tooDeep = new CborArray(List.of(new CborInt(0), deep)).encode();
    byte[] tooMany = new CborArray(List.of(new CborInt(0), new CborArray(many))).encode();
    outcome(tooDeep, CborLimits.DEFAULT, memo);
    outcome(tooMany, CborLimits.DEFAULT, memo);

    assertThat(outcome(tooDeep, TIGHT, memo))
        .startsWith("refused TOO_DEEP")
        .isEqualTo(outcome(tooDeep, TIGHT, null));
    assertThat(outcome(tooMany, TIGHT, memo))
        .startsWith("refused LENGTH_LIMIT")
        .isEqualTo(outcome(tooMany, TIGHT, null));
  }

  @Test
  void theMemo_holdsAtMostItsLimit_andNoItemOverItsBounds() throws Exception {
    CborItemMemo memo = new CborItemMemo(2, 16, 4, 8);
    for (int i = 0; i < 20; i++) {
      CanonicalCbor.decode(
          new CborArray(List.of(new CborInt(i))).encode(), CborLimits.DEFAULT, memo);
      assertThat(memo.size()).isLessThanOrEqualTo(8);
    }
    memo.clear();
    CanonicalCbor.decode(
        new CborArray(List.of(CborBytes.of(new byte[16]))).encode(), CborLimits.DEFAULT, memo);
    assertThat(memo.size()).as("an item of 17 bytes").isZero();
    CanonicalCbor.decode(
        new CborArray(
                List.of(
                    new CborArray(
                        List.of(new CborInt(1), new CborInt(2), new CborInt(3), new CborInt(4)))))
            .encode(),
        CborLimits.DEFAULT,
        memo);
    assertThat(memo.size()).as("an item of 5 items").isZero();
  }

  @Test
  void itemsCraftedToShareAHashCode_areHeldOnce_andEachDecodesToItself() throws Exception {
    CborItemMemo memo = new CborItemMemo(2, 4096, 100, 100);
    for (int k = 0; k < 5; k++) {
      // In two bytes, the first raised by k and the second lowered by 31k: the same hash code.
      byte[] content = {(byte) k, (byte) (-31 * k)};
      byte[] in = new CborArray(List.of(CborBytes.of(content))).encode();
      CborValue v = CanonicalCbor.decode(in, CborLimits.DEFAULT, memo);
      assertThat(((CborBytes) ((CborArray) v).items().get(0)).bytes()).isEqualTo(content);
      assertThat(CanonicalCbor.decode(in, CborLimits.DEFAULT, memo)).isEqualTo(v);
    }
    assertThat(memo.size()).isEqualTo(1);
  }

  /** Random edits to a valid encoding: bytes replaced, sometimes cut short or grown. */
  private static byte[] mutant(byte[] valid, Random random) {
    byte[] m = valid.clone();
    for (int e = 1 + random.nextInt(3); e > 0; e--) {
      m[random.nextInt(m.length)] = (byte) random.nextInt(256);
    }
    return switch (random.nextInt(6)) {
      case 0 -> Arrays.copyOf(m, random.nextInt(m.length));
      case 1 -> Arrays.copyOf(m, m.length + 1 + random.nextInt(4));
      default -> m;
    };
  }
}
