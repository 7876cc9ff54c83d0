package org.meshjava.core.cbor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * Decoding in place ({@link CanonicalCbor#decodeInPlace}): large byte strings are views of the
 * input, small ones copies; the values are the values {@link CanonicalCbor#decode(byte[])} gives,
 * the rules are the same, and decoding an array never keeps a view of it.
 */
class CanonicalCborInPlaceTest {
  private static final int LARGE = CanonicalCbor.IN_PLACE_BYTES;

  private static byte[] filled(int n, int seed) {
    byte[] b = new byte[n];
    for (int i = 0; i < n; i++) {
      b[i] = (byte) (i * 31 + seed);
    }
    return b;
  }

  private static CborMap sample() {
    return CborMap.builder()
        .put("large", CborBytes.of(filled(LARGE, 1)))
        .put("small", CborBytes.of(filled(LARGE - 1, 2)))
        .put("nested", CborArray.of(CborInt.of(7), CborBytes.of(filled(3 * LARGE, 3))))
        .build();
  }

  /** {@code bytes} at offset 5 of a larger array, as a view whose position is 5. */
  private static ByteBuffer inside(byte[] bytes, byte[] around) {
    System.arraycopy(bytes, 0, around, 5, bytes.length);
    return ByteBuffer.wrap(around, 5, bytes.length).asReadOnlyBuffer();
  }

  private static CborBytes bytesAt(CborValue map, String key) {
    return (CborBytes) ((CborMap) map).get(key).orElseThrow();
  }

  @Test
  void inPlace_decodesTheSameValue_andReencodesToTheInput() throws Exception {
    byte[] encoded = sample().encode();
    ByteBuffer in = inside(encoded, new byte[encoded.length + 9]);
    CborValue v = CanonicalCbor.decodeInPlace(in, CborLimits.DEFAULT);
    assertThat(v).isEqualTo(sample()).isEqualTo(CanonicalCbor.decode(encoded));
    assertThat(v.hashCode()).isEqualTo(sample().hashCode());
    assertThat(v.encode()).isEqualTo(encoded);
    assertThat(bytesAt(v, "large").bytes()).isEqualTo(filled(LARGE, 1));
    assertThat(bytesAt(v, "large").length()).isEqualTo(LARGE);
    assertThat(bytesAt(v, "large").hex()).isEqualTo(CborBytes.of(filled(LARGE, 1)).hex());
    assertThat(in.position()).isEqualTo(5);
    assertThat(in.remaining()).isEqualTo(encoded.length);
  }

  @Test
  void inPlace_largeByteStringsAreViews_smallOnesCopies() throws Exception {
    byte[] encoded = sample().encode();
    byte[] around = new byte[encoded.length + 9];
    CborValue v = CanonicalCbor.decodeInPlace(inside(encoded, around), CborLimits.DEFAULT);
    // Flip every byte of the input: what was read in place changes, what was copied does not.
    for (int i = 0; i < around.length; i++) {
      around[i] ^= (byte) 0xff;
    }
    assertThat(bytesAt(v, "large").bytes()).isNotEqualTo(filled(LARGE, 1));
    assertThat(bytesAt(v, "small").bytes()).isEqualTo(filled(LARGE - 1, 2));
    CborArray nested = (CborArray) ((CborMap) v).get("nested").orElseThrow();
    assertThat(((CborBytes) nested.items().get(1)).bytes()).isNotEqualTo(filled(3 * LARGE, 3));
    // A view is never writable through what the value hands out.
    assertThat(bytesAt(v, "large").asReadOnlyBuffer().isReadOnly()).isTrue();
  }

  @Test
  void decodingAnArray_keepsNoViewOfIt() throws Exception {
    byte[] encoded = sample().encode();
    CborValue v = CanonicalCbor.decode(encoded);
    Arrays.fill(encoded, (byte) 0);
    assertThat(v).isEqualTo(sample());
  }

  @Test
  void embeddedLargeByteStrings_areViewsOfTheOuterByteString() throws Exception {
    CborBytes outer = CborBytes.of(sample().encode());
    CborValue v = CanonicalCbor.decode(outer, CborLimits.DEFAULT);
    assertThat(v).isEqualTo(sample());
    assertThat(v.encode()).isEqualTo(outer.bytes());
  }

  @Test
  void inPlace_refusesWhatDecodeRefuses_withOffsetsFromThePosition() {
    // A large byte string followed by a non-shortest integer: refused at its offset.
    byte[] large = CborBytes.of(filled(LARGE, 4)).encode();
    byte[] bad = Arrays.copyOf(new byte[] {(byte) 0x82}, 1 + large.length + 2);
    System.arraycopy(large, 0, bad, 1, large.length);
    bad[1 + large.length] = 0x18;
    bad[2 + large.length] = 0x01;
    ByteBuffer in = inside(bad, new byte[bad.length + 9]);
    assertThatThrownBy(() -> CanonicalCbor.decodeInPlace(in, CborLimits.DEFAULT))
        .isInstanceOfSatisfying(
            CborDecodeException.class,
            e -> {
              assertThat(e.rule()).isEqualTo(CborRule.NON_SHORTEST);
              assertThat(e.offset()).isEqualTo(1 + large.length);
            });
    byte[] truncated = Arrays.copyOf(large, large.length - 1);
    assertThatThrownBy(
            () -> CanonicalCbor.decodeInPlace(ByteBuffer.wrap(truncated), CborLimits.DEFAULT))
        .isInstanceOfSatisfying(
            CborDecodeException.class, e -> assertThat(e.rule()).isEqualTo(CborRule.LENGTH_LIMIT));
    byte[] trailing = Arrays.copyOf(large, large.length + 1);
    assertThatThrownBy(
            () -> CanonicalCbor.decodeInPlace(ByteBuffer.wrap(trailing), CborLimits.DEFAULT))
        .isInstanceOfSatisfying(
            CborDecodeException.class,
            e -> assertThat(e.rule()).isEqualTo(CborRule.TRAILING_BYTES));
    CborLimits small = new CborLimits(8, LARGE, 16);
    assertThatThrownBy(() -> CanonicalCbor.decodeInPlace(ByteBuffer.wrap(large), small))
        .isInstanceOfSatisfying(
            CborDecodeException.class,
            e -> assertThat(e.rule()).isEqualTo(CborRule.INPUT_TOO_LARGE));
  }

  private static byte[] concat(java.util.List<ByteBuffer> segments) {
    int n = segments.stream().mapToInt(ByteBuffer::remaining).sum();
    ByteBuffer all = ByteBuffer.allocate(n);
    segments.forEach(b -> all.put(b.duplicate()));
    return all.array();
  }

  @Test
  void segments_concatenateToTheEncoding_withLargeViewsAsThemselves() throws Exception {
    byte[] large = filled(3 * LARGE, 5);
    ByteBuffer source = ByteBuffer.wrap(large).asReadOnlyBuffer();
    CborMap withViews =
        CborMap.builder()
            .put("a", CborBytes.viewOf(source))
            .put("b", CborBytes.viewOf(ByteBuffer.wrap(filled(LARGE - 1, 6))))
            .put("c", CborArray.of(CborInt.of(1), CborBytes.viewOf(source), CborText.of("x")))
            .put("d", CborBytes.of(filled(2 * LARGE, 7)))
            .build();
    java.util.List<ByteBuffer> segments = CanonicalCbor.encodeSegments(withViews);
    assertThat(concat(segments)).isEqualTo(withViews.encode());
    CborMap copies =
        CborMap.builder()
            .put("a", CborBytes.of(large))
            .put("b", CborBytes.of(filled(LARGE - 1, 6)))
            .put("c", CborArray.of(CborInt.of(1), CborBytes.of(large), CborText.of("x")))
            .put("d", CborBytes.of(filled(2 * LARGE, 7)))
            .build();
    assertThat(withViews.encode()).isEqualTo(copies.encode());
    assertThat(withViews).isEqualTo(copies);
    // The two large views are segments of their own, sharing the source's bytes; the small view
    // and the array of its own are copied into the segments around them.
    assertThat(segments).hasSize(5);
    assertThat(segments.get(1)).isEqualTo(ByteBuffer.wrap(large));
    assertThat(segments.get(3)).isEqualTo(ByteBuffer.wrap(large));
    assertThat(segments).allSatisfy(b -> assertThat(b.isReadOnly()).isTrue());
    large[0] ^= 1;
    assertThat(segments.get(1).get(0)).isEqualTo(large[0]);
    assertThat(CanonicalCbor.encodeSegments(CborInt.of(7))).hasSize(1);
  }

  @Test
  void aByteStringsHead_isWhatItsEncodingStartsWith() {
    for (int n : new int[] {0, 1, 23, 24, 255, 256, 65_535, 65_536}) {
      byte[] encoded = CborBytes.of(new byte[n]).encode();
      assertThat(CanonicalCbor.byteStringHead(n))
          .isEqualTo(Arrays.copyOf(encoded, encoded.length - n));
    }
    assertThat(CanonicalCbor.byteStringHead(1L << 32))
        .containsExactly(0x5b, 0, 0, 0, 1, 0, 0, 0, 0);
    assertThatThrownBy(() -> CanonicalCbor.byteStringHead(-1))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
