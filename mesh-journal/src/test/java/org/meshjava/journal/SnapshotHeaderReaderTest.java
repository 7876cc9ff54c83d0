package org.meshjava.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.meshjava.journal.JournalHistory.STEWARD;
import static org.meshjava.journal.JournalHistory.STEWARD_ID;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.meshjava.core.ContentId;
import org.meshjava.journal.internal.SnapshotBytes;
import org.meshjava.journal.internal.SnapshotHeaderReader;

/**
 * The header reader a start falls back on when a snapshot is too large to open (SPEC.md §60.8,
 * "Size"), over bytes laid out by hand: it finds the four fields wherever they are among values it
 * skips (byte strings, maps, tags, nested arrays), reads every width of CBOR argument, asks its
 * source only for bytes the snapshot holds and far fewer than a large one holds, and refuses as
 * {@code MALFORMED} every layout that is not a snapshot's header, rather than reading some other
 * position. A source that stops giving bytes ends the read with an {@link IOException}; a reader
 * that looped on it would hang, hence the {@code @Timeout}.
 */
@Timeout(60)
class SnapshotHeaderReaderTest {
  static final byte[] HASH = ContentId.ofBytes(new byte[] {7}).bytes();
  static final byte[] SIGNATURE = new byte[64];

  /** A CBOR writer for layouts the canonical encoder would not produce. */
  static final class Cbor {
    final ByteArrayOutputStream out = new ByteArrayOutputStream();

    Cbor head(int major, long argument) {
      int m = major << 5;
      if (argument < 24) {
        out.write(m | (int) argument);
      } else if (argument < 1L << 8) {
        out.write(m | 24);
        out.write((int) argument);
      } else if (argument < 1L << 16) {
        out.write(m | 25);
        be(argument, 2);
      } else if (argument < 1L << 32) {
        out.write(m | 26);
        be(argument, 4);
      } else {
        out.write(m | 27);
        be(argument, 8);
      }
      return this;
    }

    private void be(long v, int bytes) {
      for (int i = bytes - 1; i >= 0; i--) {
        out.write((int) (v >>> (8 * i)));
      }
    }

    Cbor text(String s) {
      return raw(2 + 1, s.getBytes(StandardCharsets.UTF_8));
    }

    Cbor bytes(byte[] b) {
      return raw(2, b);
    }

    private Cbor raw(int major, byte[] b) {
      head(major, b.length);
      out.writeBytes(b);
      return this;
    }

    Cbor raw(byte[] b) {
      out.writeBytes(b);
      return this;
    }

    Cbor uint(long v) {
      return head(0, v);
    }

    byte[] done() {
      return out.toByteArray();
    }
  }

  /** The four fields as a snapshot's body holds them, without the map's head. */
  static Cbor fields(Cbor c, long count, byte[] hash, long locator, long auths, long revs) {
    c.text("format").uint(Snapshot.FORMAT);
    c.text("steward").text(STEWARD_ID.value());
    c.text("position").head(4, 3).uint(count).bytes(hash);
    if (locator < 0) {
      c.head(1, -1 - locator);
    } else {
      c.uint(locator);
    }
    return c.text("counts").head(4, 2).uint(auths).uint(revs);
  }

  /** A body of the fields alone. */
  static byte[] body() {
    return fields(new Cbor().head(5, 4), 42, HASH, 9, 3, 1).done();
  }

  /** A snapshot file holding {@code body} and a signature. */
  static byte[] file(byte[] body) {
    return new Cbor().head(4, 2).bytes(body).bytes(SIGNATURE).done();
  }

  /** The header of {@code bytes}, read from an array. */
  static SnapshotHeader read(byte[] bytes) throws Exception {
    return SnapshotHeaderReader.read(bytes.length, strict(bytes, new AtomicLong()));
  }

  /**
   * Reads {@code bytes}, failing the test if asked for a byte past their end, and adding what it
   * hands out to {@code given}.
   */
  static SnapshotBytes strict(byte[] bytes, AtomicLong given) {
    return (dst, at) -> {
      assertThat(at + dst.remaining())
          .as("asked only for bytes it holds")
          .isLessThanOrEqualTo(bytes.length);
      int n = dst.remaining();
      dst.put(bytes, (int) at, n);
      given.addAndGet(n);
      return n;
    };
  }

  static SnapshotHeader header(long count, Optional<ContentId> hash, long locator) {
    return new SnapshotHeader(
        Snapshot.FORMAT, STEWARD_ID, new JournalPosition(count, hash, locator), 3, 1);
  }

  static void assertMalformed(byte[] bytes, String detail) {
    assertThatThrownBy(() -> read(bytes))
        .isInstanceOfSatisfying(
            SnapshotException.class,
            e -> assertThat(e.reason()).isEqualTo(SnapshotException.Reason.MALFORMED))
        .hasMessageContaining(detail);
  }

  @Test
  void theFields_areFoundAfterByteStringsMapsTagsAndArrays_whicheverWidthTheirArgumentsTake()
      throws Exception {
    Cbor body = new Cbor().head(5, 7);
    body.text("bytes").bytes(new byte[300]);
    body.text("b").head(4, 0);
    // Right before the first field: a map read one pair too far would take "format" as its own.
    body.text("map").head(5, 1).text("a").head(6, 1).head(4, 2).uint(1).bytes(new byte[] {1, 2});
    fields(body, 10_000_000_000L, HASH, 70_000, 300, 65_535);

    assertThat(read(file(body.done())))
        .isEqualTo(
            new SnapshotHeader(
                Snapshot.FORMAT,
                STEWARD_ID,
                new JournalPosition(
                    10_000_000_000L, Optional.of(ContentId.fromDigest(HASH)), 70_000),
                300,
                65_535));
  }

  @Test
  void thePositionOfAnEmptyJournal_hasNoHash_andANegativeLocatorIsNone() throws Exception {
    byte[] body = fields(new Cbor().head(5, 4), 0, new byte[0], -5, 3, 1).done();

    assertThat(read(file(body))).isEqualTo(header(0, Optional.empty(), -1));
  }

  @Test
  void aPositionHashOfAnotherLength_isMalformed() {
    byte[] body = fields(new Cbor().head(5, 4), 42, new byte[16], 9, 3, 1).done();

    assertMalformed(file(body), "position hash is 16 bytes");
  }

  /**
   * One level of nesting: an array of one item, a map of one pair (nesting in its value or in its
   * key), or a tag.
   */
  enum Level {
    ARRAY {
      @Override
      void open(Cbor c) {
        c.head(4, 1);
      }
    },
    MAP {
      @Override
      void open(Cbor c) {
        c.head(5, 1).uint(0);
      }
    },
    TAG {
      @Override
      void open(Cbor c) {
        c.head(6, 1);
      }
    },
    /** A map of one pair whose key is the next level: its value, 0, follows the key. */
    MAP_KEY {
      @Override
      void open(Cbor c) {
        c.head(5, 1);
      }

      @Override
      void close(Cbor c) {
        c.uint(0);
      }
    };

    abstract void open(Cbor c);

    /** What follows the nested value at this level. */
    void close(Cbor c) {}
  }

  @Test
  void valuesNestedAsDeepAsASnapshotsAreSkipped_andOneLevelDeeperIsMalformed() throws Exception {
    for (Level level : Level.values()) {
      for (int depth : new int[] {8, 9}) {
        Cbor body = new Cbor().head(5, 5).text("deep");
        for (int i = 0; i < depth; i++) {
          level.open(body);
        }
        body.uint(0); // at depth `depth` below the value skipped
        for (int i = 0; i < depth; i++) {
          level.close(body);
        }
        byte[] f = file(fields(body, 42, HASH, 9, 3, 1).done());
        if (depth == 8) {
          assertThat(read(f))
              .as(level.name())
              .isEqualTo(header(42, Optional.of(ContentId.fromDigest(HASH)), 9));
        } else {
          assertMalformed(f, "nested deeper than a snapshot is");
        }
      }
    }
  }

  @Test
  void aFieldOfAnotherType_isMalformed_namingBothTypes() {
    byte[] body = fields(new Cbor().head(5, 4), 42, HASH, 9, 3, 1).done();
    // "format" is the first key: its value, an unsigned integer, becomes an empty text string.
    int value = 2 + "format".length(); // the map's head, the key's head, its six bytes
    body[value] = (byte) (3 << 5);

    assertMalformed(file(body), "major type 3 where 0 belongs");
  }

  /**
   * A value larger than the reader's buffer ahead of the fields: the fields are read by a second
   * fill, which asks for no more than the bytes left before the end.
   */
  @Test
  void fieldsAfterAValueLargerThanTheBuffer_areReadAskingOnlyForBytesTheFileHolds()
      throws Exception {
    Cbor body = new Cbor().head(5, 5).text("big").bytes(new byte[100_000]);
    byte[] f = file(fields(body, 42, HASH, 9, 3, 1).done());
    AtomicLong given = new AtomicLong();

    assertThat(SnapshotHeaderReader.read(f.length, strict(f, given)))
        .isEqualTo(header(42, Optional.of(ContentId.fromDigest(HASH)), 9));
    assertThat(given.get()).isLessThan(100_000);
  }

  @Test
  void keysAsLongAsTheFormatsLongest_areRead_andLongerOnesMalformed() throws Exception {
    byte[] longest =
        fields(new Cbor().head(5, 5).text("k".repeat(32)).uint(0), 42, HASH, 9, 3, 1).done();
    assertThat(read(file(longest)))
        .isEqualTo(header(42, Optional.of(ContentId.fromDigest(HASH)), 9));

    byte[] longer =
        fields(new Cbor().head(5, 5).text("k".repeat(33)).uint(0), 42, HASH, 9, 3, 1).done();
    assertMalformed(file(longer), "key is 33 bytes long");
  }

  @Test
  void aBodyEndingExactlyAtTheEnd_isRead_andOneDeclaredPastItIsMalformed() throws Exception {
    byte[] body = body();
    byte[] exact = new Cbor().head(4, 2).bytes(body).done(); // no signature after it

    assertThat(read(exact)).isEqualTo(header(42, Optional.of(ContentId.fromDigest(HASH)), 9));
    byte[] past = new Cbor().head(4, 2).head(2, body.length + 1).raw(body).done();
    assertMalformed(past, "its body runs past the end of the snapshot");
  }

  @Test
  void aBodyCutInsideItsLastField_isMalformed_thoughTheBytesAfterItWouldComplete() {
    byte[] body = body();
    // The body's declared length stops one byte short; the byte itself follows, then the
    // signature.
    byte[] cut = new Cbor().head(4, 2).head(2, body.length - 1).raw(body).bytes(SIGNATURE).done();

    assertMalformed(cut, "it ends inside its header");
  }

  @Test
  void aMapDeclaringFewerPairsThanItsBytesHold_isMalformed_forTheFieldItLacks() {
    byte[] body = body();
    body[0] = (byte) (5 << 5 | 3); // three pairs declared: "counts", the fourth, is not in the map

    assertMalformed(file(body), "the body lacks one of format, steward, position and counts");
  }

  @Test
  void aSizeOfNothing_isMalformed_andANegativeSizeAMistake() {
    assertThatThrownBy(() -> SnapshotHeaderReader.read(0, (dst, at) -> -1))
        .isInstanceOfSatisfying(
            SnapshotException.class,
            e -> assertThat(e.reason()).isEqualTo(SnapshotException.Reason.MALFORMED));
    assertThatThrownBy(() -> SnapshotHeaderReader.read(-1, (dst, at) -> -1))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void aSourceHandingOutOneByteAtATime_givesTheSameHeader() throws Exception {
    Snapshot snapshot = Snapshot.sign(STEWARD, SnapshotTest.richState());
    byte[] bytes = snapshot.encoded();
    SnapshotBytes oneByOne =
        (dst, at) -> {
          if (at >= bytes.length) {
            return -1;
          }
          dst.put(bytes[(int) at]);
          return 1;
        };

    assertThat(SnapshotHeaderReader.read(bytes.length, oneByOne)).isEqualTo(snapshot.header());
  }

  @Test
  void aSourceThatStopsGivingBytesBeforeItsSize_endsTheReadWithAnIoError() {
    byte[] bytes = file(body());
    byte[] half = Arrays.copyOf(bytes, bytes.length / 2);
    SnapshotBytes endsEarly =
        (dst, at) -> {
          if (at >= half.length) {
            return -1;
          }
          int n = (int) Math.min(dst.remaining(), half.length - at);
          dst.put(half, (int) at, n);
          return n;
        };
    SnapshotBytes givesNothing = (dst, at) -> 0;

    assertThatThrownBy(() -> SnapshotHeaderReader.read(bytes.length, endsEarly))
        .isInstanceOf(EOFException.class);
    assertThatThrownBy(() -> SnapshotHeaderReader.read(bytes.length, givesNothing))
        .isInstanceOf(EOFException.class);
  }

  /**
   * Forty thousand receipts put megabytes of tree levels before the fields (in the body's canonical
   * key order); they are skipped by their length, so far less is read than the file holds, and
   * never a byte past its end.
   */
  @Test
  void aLargeSnapshot_isReadAskingOnlyForBytesItHolds_andFarFewerThanItHolds() throws Exception {
    Snapshot snapshot = Snapshot.sign(STEWARD, SnapshotLargeBodyTest.largeState());
    byte[] bytes = snapshot.encoded();
    AtomicLong given = new AtomicLong();

    assertThat(SnapshotHeaderReader.read(bytes.length, strict(bytes, given)))
        .isEqualTo(snapshot.header());
    assertThat(given.get()).isLessThan(bytes.length / 4);
  }
}
