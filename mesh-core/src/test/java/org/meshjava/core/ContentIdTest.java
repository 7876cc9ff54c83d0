package org.meshjava.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.meshjava.core.cbor.CborInt;
import org.meshjava.core.cbor.CborText;
import org.meshjava.core.crypto.Blake3;

/** Content ids: BLAKE3-256, 64 lowercase hex digits on the wire. */
class ContentIdTest {
  private static final String HASH =
      "af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262";

  @Test
  void of_hashesTheCanonicalCbor_whileOfBytes_hashesBytesAsTheyAre() {
    CanonicalForm value = () -> new CborText("hi").encode();
    byte[] canonical = {0x62, 'h', 'i'};
    assertThat(ContentId.of(value)).isEqualTo(ContentId.ofBytes(canonical));
    assertThat(ContentId.of(value)).isNotEqualTo(ContentId.ofBytes(new byte[] {'h', 'i'}));
    assertThat(ContentId.ofBytes(new CborText("hi").encode())).isEqualTo(ContentId.of(value));
    assertThat(ContentId.ofBytes(canonical).bytes()).isEqualTo(Blake3.hash(canonical));
  }

  @Test
  void fromHex_roundTripsLowercase() {
    ContentId id = ContentId.fromHex(HASH);
    assertThat(id.hex()).isEqualTo(HASH);
    assertThat(id).hasToString(HASH);
    assertThat(ContentId.fromDigest(id.bytes())).isEqualTo(id).hasSameHashCodeAs(id);
  }

  @Test
  void fromHex_whenUppercase_refuses() {
    assertThatThrownBy(() -> ContentId.fromHex(HASH.toUpperCase()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "a content id is not lowercase hex: upper-case 'A' at index 0 (write it in lower"
                + " case)");
    String oneUpper = HASH.substring(0, 63) + "F";
    assertThat(HASH.charAt(63)).isEqualTo('2');
    assertThatThrownBy(() -> ContentId.fromHex(HASH.substring(0, 2) + "F" + HASH.substring(3)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("index 2");
    assertThatThrownBy(() -> ContentId.fromHex(oneUpper))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void fromHex_whenWrongLengthOrNotHex_refuses() {
    for (String bad :
        new String[] {
          "",
          HASH.substring(1),
          HASH + "0",
          "0x" + HASH.substring(2),
          HASH.substring(0, 63) + "g",
          HASH.substring(0, 63) + " ",
          " " + HASH.substring(1),
          HASH.substring(0, 63) + "\u0663"
        }) {
      assertThatThrownBy(() -> ContentId.fromHex(bad))
          .as("'%s'", bad)
          .isInstanceOf(IllegalArgumentException.class);
    }
    assertThatThrownBy(() -> ContentId.fromHex(null)).isInstanceOf(NullPointerException.class);
  }

  @Test
  void fromDigest_whenNot32Bytes_refuses_andCopies() {
    assertThatThrownBy(() -> ContentId.fromDigest(new byte[31]))
        .isInstanceOf(IllegalArgumentException.class);
    byte[] d = new byte[32];
    ContentId id = ContentId.fromDigest(d);
    d[0] = 1;
    assertThat(id.bytes()[0]).isZero();
    id.bytes()[0] = 1;
    assertThat(id.bytes()[0]).isZero();
  }

  @Test
  void compareTo_isUnsignedBytewise_likeTheHex() {
    ContentId low = ContentId.fromHex("7f" + "0".repeat(62));
    ContentId high = ContentId.fromHex("80" + "0".repeat(62));
    assertThat(low).isLessThan(high);
    assertThat(low.hex().compareTo(high.hex())).isNegative();
  }

  @Test
  void of_isTheHashOfTheEncoding() {
    CanonicalForm zero = () -> new CborInt(0).encode();
    assertThat(ContentId.of(zero).bytes()).isEqualTo(Blake3.hash(new byte[] {0}));
  }
}
