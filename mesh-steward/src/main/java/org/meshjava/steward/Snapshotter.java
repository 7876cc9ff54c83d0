package org.meshjava.steward;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.journal.Journal;
import org.meshjava.journal.JournalException;
import org.meshjava.journal.JournalPosition;
import org.meshjava.journal.JournalRecord;
import org.meshjava.journal.Snapshot;
import org.meshjava.journal.SnapshotException;
import org.meshjava.journal.SnapshotState;
import org.meshjava.journal.SnapshotStore;
import org.meshjava.journal.internal.ReplayState;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes the steward's journal snapshots (§2.2, SPEC.md §60.8): every {@code every} records, every
 * {@code interval}, and on close. It keeps its own replay of the journal, started from the state
 * recovery reached, and brings it up to date by replaying the records written since, exactly as a
 * restart would; so a snapshot is, by construction, the state a full replay reaches at its
 * position, and taking one never stops or slows a serve beyond the CPU the replay uses (on a
 * background thread). Its memory is a second copy of the state (not of the records), and while it
 * reads, a copy of the grant chain table to decode with.
 *
 * <p>Thread-safe: snapshots are taken one at a time.
 */
final class Snapshotter implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Snapshotter.class);
  private static final int BATCH = 4096;

  private final SigningKey key;
  private final Journal journal;
  private final SnapshotStore store;
  private final long every;

  /** The transparency log's tree, whose levels a snapshot carries (none when the log is off). */
  private final LogKeeper keeper;

  /** The state to start from, until the first snapshot restores it (off the start's path). */
  private @org.jspecify.annotations.Nullable SnapshotState seed;

  private @org.jspecify.annotations.Nullable ReplayState replay;
  private final ScheduledExecutorService worker;
  private final AtomicBoolean queued = new AtomicBoolean();
  private volatile long savedThrough;
  private boolean closed;

  /**
   * Set once a snapshot did not fit the store ({@code TOO_LARGE}): the state only grows (every
   * receipt id stays in it), so no later one would either. From then on no snapshot is tried, the
   * replay kept for them is dropped, and this refusal is what {@link #snapshot()} throws; its
   * warning is logged once, not at every cadence.
   */
  private volatile @org.jspecify.annotations.Nullable SnapshotException tooLarge;

  private java.util.concurrent.@org.jspecify.annotations.Nullable ScheduledFuture<?> periodic;

  /** The longest interval the snapshots can be scheduled at: {@code Long.MAX_VALUE} ms. */
  static final Duration LONGEST_INTERVAL = Duration.ofMillis(Long.MAX_VALUE);

  /**
   * @param recovered a state recovery reached (the snapshot it loaded, or the state at the
   *     journal's end); it is restored only when the first snapshot is taken, so a start does not
   *     pay for it
   * @param saved the position the latest stored snapshot covers (count 0 if none)
   * @param keeper the steward's transparency log, whose tree's levels each snapshot carries
   */
  Snapshotter(
      SigningKey key,
      Journal journal,
      SnapshotStore store,
      long every,
      Duration interval,
      SnapshotState recovered,
      long saved,
      LogKeeper keeper) {
    this.key = key;
    this.keeper = keeper;
    this.journal = journal;
    this.store = store;
    this.every = every;
    this.savedThrough = saved;
    this.seed = recovered;
    this.worker =
        Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().daemon().name("mesh-snapshotter").factory());
    if (!interval.isZero()) {
      long ms = interval.toMillis();
      periodic = worker.scheduleWithFixedDelay(this::quietly, ms, ms, TimeUnit.MILLISECONDS);
    }
  }

  /** After an append: queues a snapshot when {@code every} records were written since the last. */
  void maybe() {
    if (every > 0
        && tooLarge == null
        && journal.position().count() - savedThrough >= every
        && queued.compareAndSet(false, true)) {
      try {
        worker.execute(
            () -> {
              queued.set(false);
              quietly();
            });
      } catch (java.util.concurrent.RejectedExecutionException closing) {
        queued.set(false);
      }
    }
  }

  private void quietly() {
    if (tooLarge != null) {
      return;
    }
    try {
      snapshot();
    } catch (SnapshotException e) {
      if (e.reason() == SnapshotException.Reason.TOO_LARGE) {
        LOG.warn(
            "journal snapshot not written, and no more are taken until the steward restarts: {}",
            e.getMessage());
      } else {
        LOG.warn("journal snapshot not written: {}", e.getMessage());
      }
    } catch (JournalException | RuntimeException e) {
      LOG.warn("journal snapshot not written: {}", e.getMessage());
    }
  }

  /**
   * Replays the records written since the last snapshot and stores a snapshot at the journal's
   * durable end, unless nothing was written since.
   *
   * @return the position stored, or the last one when nothing new was written
   */
  synchronized JournalPosition snapshot() throws JournalException, SnapshotException {
    SnapshotException refused = tooLarge;
    if (refused != null) {
      throw refused;
    }
    ReplayState state = replay;
    if (state == null) {
      SnapshotState from = java.util.Objects.requireNonNull(seed);
      state =
          ReplayState.restore(
              from,
              Snapshot.gate(
                  org.meshjava.core.identity.DidKey.of(key.verificationKey()),
                  from,
                  org.meshjava.jcp.Revocations.none()));
      replay = state;
      seed = null;
    }
    JournalPosition end = journal.position();
    if (end.count() <= savedThrough && state.position().count() == end.count()) {
      return state.position();
    }
    List<JournalRecord> batch = new ArrayList<>(BATCH);
    ReplayState st = state;
    // Decoded with a table of its own: the read goes on to wherever the journal ends by then, and
    // decoding a Chain record adds it to the table at once, applied or not. Sharing the replay's
    // table put the chains of records appended after `end` into a snapshot that covers only the
    // records before it, a state no replay of those records reaches (mesh journal verify refused
    // it). The replay adds each chain itself when it applies its record.
    journal.read(
        state.position(),
        new java.util.HashMap<>(state.chains()),
        r -> {
          if (r.seq() >= end.count()) {
            return; // written after we looked: the next snapshot takes it
          }
          batch.add(r);
          if (batch.size() == BATCH) {
            st.applyAll(batch);
            batch.clear();
          }
        });
    state.applyAll(batch);
    long locator = state.position().samePlace(end) ? end.locator() : -1;
    SnapshotState captured = state.capture(locator);
    try {
      fits(captured);
    } catch (SnapshotException e) {
      giveUp(e);
      throw e;
    }
    Snapshot s =
        Snapshot.sign(
            key,
            captured,
            // Packed for this snapshot alone and never changed: signed and saved in place.
            java.nio.ByteBuffer.wrap(
                keeper.levels(captured.receipts().first(), captured.receipts().size())));
    try {
      store.save(s);
    } catch (SnapshotException e) {
      if (e.reason() == SnapshotException.Reason.TOO_LARGE) {
        giveUp(e);
      }
      throw e;
    }
    savedThrough = s.position().count();
    LOG.info("journal snapshot at record {} written to {}", savedThrough, store.describe());
    if (!closed) {
      // On close the heap is about to go: reading the snapshot back would only delay the stop.
      readBack(state, s.position());
    }
    return s.position();
  }

  /**
   * Refuses {@code TOO_LARGE} a snapshot of {@code captured} whose receipt ids and tree levels
   * alone are more than the store takes, before they are packed: past the limit they no longer fit
   * the arrays they are packed into, and short of it packing a snapshot the store then refuses
   * would only take up to two gigabytes of heap for nothing. The store checks the exact size as it
   * saves.
   */
  private void fits(SnapshotState captured) throws SnapshotException {
    long n = captured.receipts().size();
    long least =
        n * org.meshjava.core.ContentId.LENGTH
            + keeper.levelsLength(captured.receipts().first(), n);
    long max = Math.min(store.maxBytes(), Snapshot.MAX_BYTES);
    if (least > max) {
      throw SnapshotException.tooLarge(
          "the snapshot at record "
              + captured.position().count()
              + " ("
              + n
              + " receipts), counting its receipt ids and tree levels alone,",
          least,
          max);
    }
  }

  /** Stops taking snapshots for good, for {@code refused} (see {@link #tooLarge}). */
  private void giveUp(SnapshotException refused) {
    tooLarge = refused;
    replay = null;
    seed = null;
  }

  /**
   * Maps the snapshot just saved back from its store and reads the receipt ids and the tree's
   * levels from there from now on, dropping their heap copies, so that what the steward keeps on
   * the heap per receipt is what came after its latest snapshot (SPEC.md §60.9). Only a store that
   * maps its files (a direct buffer) gains from this (with the log off, the witness index reads the
   * ids there too); one that hands out arrays would put a copy on the heap, so nothing changes
   * there. Anything that does not match what was just written, or fails, changes nothing: the heap
   * copies stay, and are as right as before.
   */
  private void readBack(ReplayState state, JournalPosition saved) {
    try {
      java.util.Optional<java.nio.ByteBuffer> file = store.latestBuffer();
      if (file.isEmpty() || !file.get().isDirect()) {
        return;
      }
      Snapshot back =
          Snapshot.open(file.get(), org.meshjava.core.identity.DidKey.of(key.verificationKey()));
      if (back.position().count() != saved.count()
          || !back.position().lastHash().equals(saved.lastHash())) {
        return;
      }
      org.meshjava.journal.ReceiptIds ids = back.state().receipts();
      // The witness index gets a list of its own over the same bytes: the replay adds to its list.
      org.meshjava.journal.ReceiptIds forIndex = ids.copy();
      if (state.adoptReceipts(ids)) {
        keeper.adoptReceipts(forIndex);
        back.tree().ifPresent(t -> keeper.adoptLevels(forIndex.first(), t));
      }
    } catch (SnapshotException | RuntimeException e) {
      LOG.warn(
          "journal snapshot at record {} not read back, its state stays on the heap: {}",
          saved.count(),
          e.getMessage());
    }
  }

  /** Stops the cadence without writing, for a steward that never started. */
  void discard() {
    synchronized (this) {
      closed = true;
    }
    worker.shutdown();
  }

  /** Stops the cadence and writes a last snapshot, for a clean shutdown; failures are logged. */
  @Override
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
    }
    if (periodic != null) {
      periodic.cancel(false);
    }
    // Not shutdownNow: a snapshot being written is let finish (its journal and store I/O would
    // not stop for an interrupt anyway: it runs off the calling thread, see JournalIo).
    worker.shutdown();
    try {
      worker.awaitTermination(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    quietly();
  }
}
