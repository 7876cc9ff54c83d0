package org.meshjava.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.meshjava.journal.JournalHistory.STEWARD;
import static org.meshjava.journal.JournalHistory.STEWARD_ID;
import static org.meshjava.journal.SnapshotTest.body;
import static org.meshjava.journal.SnapshotTest.get;
import static org.meshjava.journal.SnapshotTest.set;
import static org.meshjava.journal.SnapshotTest.signed;
import static org.meshjava.journal.SnapshotTest.with;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.core.cbor.CborBytes;
import org.meshjava.core.cbor.CborMap;

/**
 * A snapshot read in place ({@link Snapshot#open(ByteBuffer, org.meshjava.core.identity.DidKey)},
 * from a file mapped by {@link FileSnapshotStore#latestBuffer()}) opens to exactly the state that
 * opening its bytes as an array gives, is refused for exactly the same reasons, and stays as it was
 * opened when the store replaces or deletes its file.
 */
class SnapshotInPlaceTest {
  @TempDir Path dir;

  /** {@code file} at position 11 of a larger read-only buffer, as a mapped section would be. */
  private static ByteBuffer inside(byte[] file) {
    byte[] around = new byte[file.length + 20];
    System.arraycopy(file, 0, around, 11, file.length);
    return ByteBuffer.wrap(around, 11, file.length).asReadOnlyBuffer();
  }

  private static void assertSame(Snapshot opened, Snapshot signed) throws Exception {
    assertThat(Snapshot.canonicalBody(STEWARD_ID, opened.state()))
        .isEqualTo(Snapshot.canonicalBody(STEWARD_ID, signed.state()));
    assertThat(opened.state().receipts().packed()).isEqualTo(signed.state().receipts().packed());
    assertThat(opened.encoded()).isEqualTo(signed.encoded());
    assertThat(opened.tree().map(t -> t.root())).isEqualTo(signed.tree().map(t -> t.root()));
  }

  @Test
  void inPlace_opensToTheStateTheArrayOpensTo() throws Exception {
    for (SnapshotState state :
        new SnapshotState[] {SnapshotLargeBodyTest.largeState(), SnapshotTest.richState()}) {
      Snapshot signed = Snapshot.sign(STEWARD, state);
      ByteBuffer in = inside(signed.encoded());
      Snapshot opened = Snapshot.open(in, STEWARD_ID);
      assertSame(opened, signed);
      assertSame(Snapshot.open(signed.encoded(), STEWARD_ID), signed);
      assertThat(in.position()).isEqualTo(11);
      assertThat(in.remaining()).isEqualTo(signed.encoded().length);
    }
  }

  @Test
  void inPlace_refusesWhatTheArrayRefuses() throws Exception {
    for (SnapshotState state :
        new SnapshotState[] {SnapshotLargeBodyTest.largeState(), SnapshotTest.richState()}) {
      byte[] good = Snapshot.sign(STEWARD, state).encoded();
      byte[] flipped = good.clone();
      flipped[flipped.length / 2] ^= 1;
      assertRefusedInPlace(flipped, SnapshotException.Reason.BAD_SIGNATURE);
      CborMap body = body(good);
      CborMap ragged =
          with(body, "receipts", set(get(body, "receipts"), 1, CborBytes.of(new byte[33])));
      assertRefusedInPlace(signed(ragged), SnapshotException.Reason.MALFORMED);
      CborMap raggedSpent =
          with(
              body,
              "ledger",
              set(
                  get(body, "ledger"),
                  3,
                  CborBytes.of(new byte[org.meshjava.jcp.PackedSpent.BYTES + 1])));
      assertRefusedInPlace(signed(raggedSpent), SnapshotException.Reason.MALFORMED);
      assertRefusedInPlace(new byte[] {1, 2, 3}, SnapshotException.Reason.MALFORMED);
    }
  }

  @Test
  void inPlace_opensAsNamed_asTheArrayDoes() throws Exception {
    for (SnapshotState state :
        new SnapshotState[] {SnapshotLargeBodyTest.largeState(), SnapshotTest.richState()}) {
      Snapshot signed = Snapshot.sign(STEWARD, state);
      assertSame(Snapshot.openAsNamed(inside(signed.encoded())), signed);
    }
    byte[] theirs = Snapshot.sign(JournalHistory.OTHER, SnapshotTest.richState()).encoded();
    assertThat(Snapshot.openAsNamed(inside(theirs)).steward())
        .isEqualTo(Snapshot.openAsNamed(theirs).steward())
        .isNotEqualTo(STEWARD_ID);
    // Named as this steward but signed by another: the name is only where to look for the key.
    byte[] b = body(Snapshot.sign(STEWARD, SnapshotTest.richState()).encoded()).encode();
    byte[] forged =
        org.meshjava.core.cbor.CborArray.of(
                CborBytes.of(b), CborBytes.of(JournalHistory.OTHER.sign(b)))
            .encode();
    byte[] notADid =
        signed(
            with(
                body(Snapshot.sign(STEWARD, SnapshotTest.richState()).encoded()),
                "steward",
                org.meshjava.core.cbor.CborText.of("did:key:nope")));
    for (var refused :
        java.util.Map.of(
                forged,
                SnapshotException.Reason.BAD_SIGNATURE,
                notADid,
                SnapshotException.Reason.MALFORMED,
                new byte[] {1, 2, 3},
                SnapshotException.Reason.MALFORMED)
            .entrySet()) {
      assertThatThrownBy(() -> Snapshot.openAsNamed(inside(refused.getKey())))
          .isInstanceOfSatisfying(
              SnapshotException.class, e -> assertThat(e.reason()).isEqualTo(refused.getValue()));
    }
  }

  private static void assertRefusedInPlace(byte[] file, SnapshotException.Reason reason) {
    SnapshotTest.assertRefused(file, reason);
    assertThatThrownBy(() -> Snapshot.open(inside(file), STEWARD_ID))
        .isInstanceOfSatisfying(
            SnapshotException.class, e -> assertThat(e.reason()).isEqualTo(reason));
  }

  @Test
  void theStoresMappedLatest_isItsLatest_andOutlivesTheFileBeingReplaced() throws Exception {
    FileSnapshotStore store = new FileSnapshotStore(dir.resolve("snaps"));
    assertThat(store.latestBuffer()).isEmpty();
    store.save(FileSnapshotStoreTest.at(5));
    ByteBuffer mapped = store.latestBuffer().orElseThrow();
    assertThat(mapped.isReadOnly()).isTrue();
    byte[] read = new byte[mapped.remaining()];
    mapped.get(mapped.position(), read);
    assertThat(read).isEqualTo(store.latest().orElseThrow());
    Snapshot opened = Snapshot.open(mapped, STEWARD_ID);
    // Two newer snapshots: the mapped file is deleted (the newest two are kept).
    store.save(FileSnapshotStoreTest.at(6));
    store.save(FileSnapshotStoreTest.at(7));
    assertThat(Files.exists(dir.resolve("snaps").resolve("00000000000000000005.snapshot")))
        .isFalse();
    assertThat(opened.encoded()).isEqualTo(FileSnapshotStoreTest.at(5).encoded());
    assertThat(opened.position().count()).isEqualTo(5);
    assertThat(Snapshot.open(store.latestBuffer().orElseThrow(), STEWARD_ID).position().count())
        .isEqualTo(7);
  }

  @Test
  void theDefaultBuffer_isTheLatestBytes() throws Exception {
    byte[] file = FileSnapshotStoreTest.at(9).encoded();
    SnapshotStore store =
        new SnapshotStore() {
          @Override
          public void save(Snapshot snapshot) {}

          @Override
          public java.util.Optional<byte[]> latest() {
            return java.util.Optional.of(file.clone());
          }

          @Override
          public String describe() {
            return "one snapshot";
          }
        };
    ByteBuffer b = store.latestBuffer().orElseThrow();
    assertThat(b.isReadOnly()).isTrue();
    assertThat(Snapshot.open(b, STEWARD_ID).encoded()).isEqualTo(file);
  }

  @Test
  void aSignedSnapshot_isWrittenFromItsSectionsInPlace_asTheSameBytes() throws Exception {
    SnapshotState state = SnapshotLargeBodyTest.largeState();
    Snapshot whole = Snapshot.sign(STEWARD, state);
    byte[] levels = whole.tree().orElseThrow().packedLevels(state.receipts().size());
    Snapshot inPlace = Snapshot.sign(STEWARD, state, ByteBuffer.wrap(levels));
    assertThat(inPlace.encoded()).isEqualTo(whole.encoded());
    // Written part by part: the receipt ids and the tree's levels are parts of their own.
    assertThat(inPlace.fileSegments()).hasSizeGreaterThanOrEqualTo(5);
    FileSnapshotStore store = new FileSnapshotStore(dir.resolve("written"));
    store.save(inPlace);
    assertThat(store.latest()).hasValueSatisfying(b -> assertThat(b).isEqualTo(whole.encoded()));
    assertSame(Snapshot.open(store.latestBuffer().orElseThrow(), STEWARD_ID), whole);
    // The levels were read where they lie (the caller promises they do not change).
    levels[0] ^= 1;
    assertThat(inPlace.encoded()).isNotEqualTo(whole.encoded());
    // Signing from an array copies it.
    byte[] copied = whole.tree().orElseThrow().packedLevels(state.receipts().size());
    Snapshot fromArray = Snapshot.sign(STEWARD, state, copied);
    copied[0] ^= 1;
    assertThat(fromArray.encoded()).isEqualTo(whole.encoded());
  }
}
