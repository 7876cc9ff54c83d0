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
import org.meshjava.journal.SnapshotMapping;
import org.meshjava.journal.SnapshotState;
import org.meshjava.journal.SnapshotStore;
import org.meshjava.journal.internal.FailureWords;
import org.meshjava.journal.internal.ReplayState;
import org.meshjava.receipt.tlog.LogException;
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
   * warning is logged once, not at every cadence. Set as well ({@code IO}) once a snapshot whose
   * state the replay reads in place (the one the steward restarted from, or one it read back) was
   * cut short under it: that state cannot be read again.
   */
  private volatile @org.jspecify.annotations.Nullable SnapshotException tooLarge;

  private java.util.concurrent.@org.jspecify.annotations.Nullable ScheduledFuture<?> periodic;

  /**
   * The snapshot read back ({@link #readBack}) whose receipt ids the replay reads, or null while
   * they are on the heap or in the snapshot the start restored from. Guarded by this.
   */
  private @org.jspecify.annotations.Nullable SnapshotMapping replayReads;

  /**
   * The snapshot read back whose tree levels the keeper reads (with the log off, its witness
   * index's ids), or null likewise. Guarded by this.
   */
  private @org.jspecify.annotations.Nullable SnapshotMapping keeperReads;

  /**
   * Set once the steward closed and the last snapshot was written: the replay is dropped (so it
   * reads no mapping) and no snapshot is taken any more. Guarded by this.
   */
  private boolean retired;

  private final Runnable heldFaults;

  /**
   * @param recovered a state recovery reached (the snapshot it loaded, or the state at the
   *     journal's end); it is restored only when the first snapshot is taken, so a start does not
   *     pay for it
   * @param saved the position the latest stored snapshot covers (count 0 if none)
   * @param keeper the steward's transparency log, whose tree's levels each snapshot carries
   * @param heldFaults run last in each region that reads a mapped snapshot: it throws any fault of
   *     such a read that compiled code held back ({@link
   *     org.meshjava.journal.MappedReadFault#deliverPending}; a test's stand-in otherwise)
   * @param worker the thread snapshots are taken on ({@link #ownWorker()}; a test's stand-in
   *     otherwise), shut down by {@link #close()}
   */
  Snapshotter(
      SigningKey key,
      Journal journal,
      SnapshotStore store,
      long every,
      Duration interval,
      SnapshotState recovered,
      long saved,
      LogKeeper keeper,
      Runnable heldFaults,
      ScheduledExecutorService worker) {
    this.heldFaults = heldFaults;
    this.key = key;
    this.keeper = keeper;
    this.journal = journal;
    this.store = store;
    this.every = every;
    this.savedThrough = saved;
    this.seed = recovered;
    this.worker = worker;
    if (!interval.isZero()) {
      long ms = interval.toMillis();
      periodic = worker.scheduleWithFixedDelay(this::quietly, ms, ms, TimeUnit.MILLISECONDS);
    }
  }

  /** The thread snapshots run on, one of the snapshotter's own: a daemon, so none holds the JVM. */
  static ScheduledExecutorService ownWorker() {
    return Executors.newSingleThreadScheduledExecutor(
        Thread.ofPlatform().daemon().name("mesh-snapshotter").factory());
  }

  /**
   * After an append: queues a snapshot when {@code every} records were written since the last. A
   * snapshot that could not be queued, whatever the worker threw (rejected once closing, no thread
   * to be had), is not marked queued: the next append tries again.
   */
  void maybe() {
    if (every > 0
        && tooLarge == null
        && journal.position().count() - savedThrough >= every
        && queued.compareAndSet(false, true)) {
      boolean handedOver = false;
      try {
        worker.execute(
            () -> {
              queued.set(false);
              quietly();
            });
        handedOver = true;
      } catch (java.util.concurrent.RejectedExecutionException closing) {
        // The worker is shut down: the steward is closing, and its close writes the last one.
      } finally {
        if (!handedOver) {
          // Left set, no snapshot was ever queued again until a restart.
          queued.set(false);
        }
      }
    }
  }

  private void quietly() {
    synchronized (this) {
      if (tooLarge != null || retired) {
        return;
      }
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
      LOG.warn("journal snapshot not written: {}", FailureWords.of(e));
    }
  }

  /**
   * Replays the records written since the last snapshot and stores a snapshot at the journal's
   * durable end, unless nothing was written since.
   *
   * @return the position stored, or the last one when nothing new was written
   * @throws SnapshotException {@code IO} also when a snapshot the steward reads in place (the one
   *     it restarted from, or the latest it wrote and read back) was cut short under it (SPEC.md
   *     §60.8, "Reading in place"): its state can no longer be read, so no more snapshots are taken
   *     until a restart
   */
  synchronized JournalPosition snapshot() throws JournalException, SnapshotException {
    try {
      try {
        return taken();
      } finally {
        // Compiled code may throw a read's fault only at a later poll, past this catch: here,
        // over what taken() returned or threw of the garbage the read gave.
        heldFaults.run();
      }
    } catch (InternalError e) {
      if (!org.meshjava.journal.MappedReadFault.in(e)) {
        throw e;
      }
      SnapshotException cut =
          new SnapshotException(
              SnapshotException.Reason.IO,
              "a snapshot this steward reads in place (the one it restarted from, or the latest"
                  + " it wrote and read back) was cut short on disk while the steward ran ("
                  + e.getMessage()
                  + "); no more snapshots are taken until a restart (put the whole file back, or"
                  + " remove the cut one so that the restart replays the journal)",
              e);
      giveUp(cut);
      throw cut;
    }
  }

  /** {@link #snapshot()}, but for the fault of a read of a snapshot cut short under it. */
  private JournalPosition taken() throws JournalException, SnapshotException {
    SnapshotException refused = tooLarge;
    if (refused != null) {
      throw refused;
    }
    if (retired) {
      throw new SnapshotException(
          SnapshotException.Reason.IO,
          "the steward is closed, and its last snapshot was written as it closed; start it again to"
              + " take more",
          null);
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
   * the heap per receipt is what came after its latest snapshot (SPEC.md §60.9); then unmaps the
   * snapshot read back before, which nothing reads any more. Only a store that maps its files (a
   * direct buffer) gains from this (with the log off, the witness index reads the ids there too);
   * one that hands out arrays would put a copy on the heap, so nothing changes there. Anything that
   * does not match what was just written, or fails, changes nothing: the heap copies (or the
   * previous mapping) stay, and are still right.
   *
   * <p>Design note: when a mapping is unmapped. A file store maps each read-back into an arena of
   * its own ({@link SnapshotStore#latestMapping()}), so that a snapshot file the store deletes
   * gives back its disk space at once rather than when the garbage collector drops the mapping; but
   * a read of an unmapped view fails ({@link IllegalStateException}), so a mapping is unmapped only
   * once nothing can read it. Its readers are the views taken by two holders, tracked here as
   * {@link #replayReads} and {@link #keeperReads}:
   *
   * <ul>
   *   <li>the replay's receipt ids, read only on this thread, under this object's lock ({@link
   *       #snapshot()}): capturing a state (whose ids share the replay's), signing it (which packs
   *       the ids into an array of its own) and saving it (which writes that array, never the
   *       mapping) all end before this runs, in the same locked call;
   *   <li>the keeper's tree levels (with the log off, its witness index's ids): read by witness
   *       look-ups, proofs, checkpoints and the packing of the next snapshot's levels, on any
   *       thread, but always under the tree's (the index's) lock, which {@link LogKeeper#adopt}
   *       takes to swap in the new views whole; so once it returns true, a read that began before
   *       has ended and none after reads the old views. No read hands out a view: each copies the
   *       hashes or ids it reads.
   * </ul>
   *
   * A mapping is unmapped once neither holder reads it: the previous one when both took the new one
   * (or held another), the new one at once when neither took it. Everything else made from a
   * mapping (the snapshot opened from it, its state and tree) is dropped before this returns; an
   * opening that failed early may leave its digest thread reading, and that thread's read then
   * fails inside a result nobody asks for. The snapshot a start restored from is mapped by {@link
   * SnapshotStore#latestBuffer()} instead, since the steward's spend ledger keeps reading its spent
   * pairs; that mapping is left to the garbage collector to drop.
   */
  private void readBack(ReplayState state, JournalPosition saved) {
    SnapshotMapping before = replayReads;
    SnapshotMapping keeperBefore = keeperReads;
    SnapshotMapping file = null;
    try {
      try {
        file = store.latestMapping().orElse(null);
        if (file == null || !file.bytes().isDirect()) {
          return;
        }
        Snapshot back =
            Snapshot.open(
                file.bytes(), org.meshjava.core.identity.DidKey.of(key.verificationKey()));
        if (back.position().count() != saved.count()
            || !back.position().lastHash().equals(saved.lastHash())) {
          return;
        }
        org.meshjava.journal.ReceiptIds ids = back.state().receipts();
        // The witness index gets a list of its own over the same bytes: the replay adds to its
        // list.
        org.meshjava.journal.ReceiptIds forIndex = ids.copy();
        if (state.adoptReceipts(ids)) {
          replayReads = file;
          if (keeper.adopt(forIndex, back.tree())) {
            keeperReads = file;
          }
        }
      } finally {
        // As in snapshot(): a fault compiled code held back is thrown here, inside the catch.
        heldFaults.run();
      }
    } catch (InternalError e) {
      if (!org.meshjava.journal.MappedReadFault.in(e)) {
        throw e;
      }
      cutWhileReadBack(saved, file, e);
    } catch (SnapshotException | LogException | RuntimeException e) {
      LOG.warn(
          "journal snapshot at record {} not read back, its state stays on the heap: {}",
          saved.count(),
          FailureWords.of(e));
    } finally {
      unmapUnread(file);
      unmapUnread(before);
      unmapUnread(keeperBefore);
    }
  }

  /**
   * The snapshot at {@code saved}, written a moment ago, was cut short on disk (rewritten or
   * truncated in place by something else) while {@link #readBack} read it. Up to the replay's
   * adopting its receipt ids nothing reads that file yet: the state stays on the heap, the snapshot
   * is written anew next time, and only the operator is told, with what a restart before then meets
   * (the cut file refuses it, {@code MALFORMED}, as SPEC.md §60.8 says). Once the replay reads its
   * ids from it, its state can no longer be read, so no more snapshots are taken until a restart,
   * in words that name this snapshot, not the one the steward restarted from.
   */
  private void cutWhileReadBack(
      JournalPosition saved,
      @org.jspecify.annotations.Nullable SnapshotMapping file,
      InternalError e) {
    if (file == null || replayReads != file) {
      LOG.warn(
          "journal snapshot at record {}, written to {}, was cut short on disk while it was read"
              + " back ({}): something rewrote or truncated the file in place. Its state stays"
              + " on the heap, and the next snapshot is written as usual and supersedes it; a"
              + " restart before that is refused by the cut file (remove it, and the restart"
              + " starts from the snapshot before it, or replays the whole journal)",
          saved.count(),
          store.describe(),
          e.getMessage());
      return;
    }
    SnapshotException cut =
        new SnapshotException(
            SnapshotException.Reason.IO,
            "the snapshot at record "
                + saved.count()
                + ", written to "
                + store.describe()
                + " and read in place since, was cut short on disk as it was read back ("
                + e.getMessage()
                + "); no more snapshots are taken until a restart, which the cut file refuses"
                + " (remove it, and the restart starts from the snapshot before it, or replays the"
                + " whole journal)",
            e);
    LOG.warn("{}", cut.getMessage());
    giveUp(cut);
  }

  /** Unmaps {@code mapping} unless the replay or the keeper reads it (see {@link #readBack}). */
  private void unmapUnread(@org.jspecify.annotations.Nullable SnapshotMapping mapping) {
    if (mapping != null && mapping != replayReads && mapping != keeperReads) {
      try {
        mapping.close();
      } catch (IllegalStateException held) {
        // Nothing of ours holds it (see readBack); a snapshot is not failed over its space.
        LOG.warn("a journal snapshot read back stays mapped: {}", FailureWords.of(held));
      }
    }
  }

  /**
   * Once no snapshot is taken any more (the last one written on close, or a steward that never
   * started): drops the replay and lets go of the read-back mappings. The keeper of a steward that
   * ran goes on answering witness look-ups and proofs after its steward closed (a server stopping
   * may still ask), so the mapping it reads is not simply unmapped: it first takes the levels (or
   * ids) again from the latest file as {@link SnapshotStore#latestBuffer()} maps it, a mapping the
   * garbage collector drops once the keeper is gone ({@link #keeperToCollectedMapping}).
   *
   * @param keeperAnswers whether the keeper may still be asked (false: its steward never started)
   */
  private void retire(boolean keeperAnswers) {
    retired = true;
    replay = null;
    seed = null;
    SnapshotMapping before = replayReads;
    SnapshotMapping keeperBefore = keeperReads;
    replayReads = null;
    if (!keeperAnswers) {
      keeperReads = null;
    } else if (keeperBefore != null && keeperBefore.unmapsOnClose()) {
      keeperToCollectedMapping();
    }
    unmapUnread(before);
    unmapUnread(keeperBefore);
  }

  /**
   * Has the keeper read from the latest file as {@link SnapshotStore#latestBuffer()} maps it,
   * clearing {@link #keeperReads} if it took it. Where that fails, the read-back stays mapped
   * (until the process ends) rather than fail a late look-up.
   */
  private void keeperToCollectedMapping() {
    try {
      try {
        java.util.Optional<java.nio.ByteBuffer> file = store.latestBuffer();
        if (file.isPresent()) {
          Snapshot last =
              Snapshot.open(
                  file.get(), org.meshjava.core.identity.DidKey.of(key.verificationKey()));
          if (keeper.adopt(last.state().receipts(), last.tree())) {
            keeperReads = null;
            return;
          }
        }
      } finally {
        // The file just mapped may be cut short as it is read (rewritten in place): its fault,
        // held back by compiled code, is thrown here, inside the catch below.
        heldFaults.run();
      }
      LOG.warn(
          "the latest journal snapshot in {} does not match the transparency log on close; the one"
              + " read back before stays mapped until the process ends",
          store.describe());
    } catch (LogException e) {
      // Not a mismatch: the log's tree can no longer be read (UNREADABLE), so it takes nothing.
      LOG.warn(
          "the transparency log did not take the latest journal snapshot on close ({}: {}); the one"
              + " read back before stays mapped until the process ends",
          e.reason(),
          e.getMessage());
    } catch (SnapshotException | RuntimeException | InternalError e) {
      // A file cut short as it is read faults (SPEC.md §60.8): the close must still go on to
      // close the journal and let it go, so that fault is warned of, as a failed read is.
      if (e instanceof InternalError other && !org.meshjava.journal.MappedReadFault.in(other)) {
        throw other;
      }
      LOG.warn(
          "the latest journal snapshot could not be read on close; the one read back before stays"
              + " mapped until the process ends: {}",
          FailureWords.of(e));
    }
  }

  /** Stops the cadence without writing, for a steward that never started. */
  void discard() {
    synchronized (this) {
      closed = true;
      // A snapshot on the worker has ended, as this holds the lock it runs under.
      retire(false);
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
    try {
      quietly();
    } finally {
      // Retired whatever the last snapshot threw (an Error of the store's): the steward's close
      // goes on to close the journal, and a later snapshot() must be refused as after a close.
      synchronized (this) {
        retire(true);
      }
    }
  }
}
