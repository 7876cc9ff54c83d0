package org.meshjava.journal.internal;

import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.meshjava.journal.JournalEntry;
import org.meshjava.journal.JournalException;
import org.meshjava.journal.JournalRecord;
import org.meshjava.journal.JournalSeal;
import org.meshjava.journal.ReceiptIds;
import org.meshjava.receipt.tlog.Checkpoint;
import org.meshjava.receipt.tlog.LogException;
import org.meshjava.receipt.tlog.NoteVerifierKey;
import org.meshjava.receipt.tlog.SignedNote;
import org.meshjava.receipt.tlog.internal.CheckpointRules;
import org.meshjava.receipt.tlog.internal.MerkleTree;
import org.meshjava.receipt.tlog.internal.RootWindow;

/**
 * Rebuilds the transparency log's Merkle tree from a journal (SPEC.md §65) and checks every
 * journalled checkpoint against it: each {@code Sealed} record's envelope id is the next leaf, and
 * at each {@code Checkpoint} record the steward's signature must verify, the size must be no
 * smaller than the previous checkpoint's and no larger than the tree so far, and the tree's root at
 * that size must be the signed root, and the record's journal seal ({@link JournalSeal}) must
 * verify over its sequence and {@code prev}. A journal rewritten and re-hashed by someone without
 * the steward's key fails here even though its record chain is whole.
 *
 * <p>Needs only the steward's log key (derived from its did:key), so the steward at start and
 * {@code mesh journal verify} run the same check.
 */
public final class LogReplay {
  private LogReplay() {}

  /**
   * What the journal's receipts build.
   *
   * @param firstSequence the sequence of leaf 0
   * @param tree the rebuilt tree, handed over to the caller
   * @param latest the last journalled checkpoint, as recorded (with its cosignature lines)
   * @param checkpoints how many {@code Checkpoint} records were checked
   */
  public record Result(
      long firstSequence, MerkleTree tree, Optional<SignedNote> latest, int checkpoints) {
    /** Validates the parts. */
    public Result {
      Objects.requireNonNull(tree, "tree");
      Objects.requireNonNull(latest, "latest");
      if (firstSequence < 0 || checkpoints < 0) {
        throw new IllegalArgumentException("a sequence and a count are not negative");
      }
    }
  }

  /**
   * Rebuilds the tree from {@code records} and checks their checkpoints against {@code logKey}.
   *
   * @param emptyFirst the sequence of leaf 0 when the journal records no receipt
   * @throws JournalException {@code REPLAY_REFUSED} naming the record: a receipt out of sequence,
   *     or a checkpoint not signed by {@code logKey}, out of order, or not reproduced by the
   *     receipts
   */
  public static Result replay(List<JournalRecord> records, NoteVerifierKey logKey, long emptyFirst)
      throws JournalException {
    MerkleTree tree = new MerkleTree();
    // The tree handed over gives the checkpoints' roots itself: each leaf is hashed once.
    Checker checker = new Checker(emptyFirst, null, tree);
    for (JournalRecord r : records) {
      checker.accept(r, logKey);
    }
    return new Result(checker.firstSequence(), tree, checker.latest(), checker.checkpoints());
  }

  /**
   * The same check over records that arrive one at a time (a journal too long to hold is streamed
   * through it), in memory that does not grow with the journal: it keeps neither the records nor
   * the tree, only the roots a later checkpoint may still sign ({@link RootWindow}: the tree's edge
   * at the latest checkpoint's size and 32 bytes for each receipt after it). {@link #replay}'s own
   * check, which builds the whole tree anyway, reads the roots from that tree instead, so that each
   * receipt is hashed once. Not thread-safe; one per replay.
   */
  public static final class Checker {
    /**
     * How many leaves a resumed check folds at a time while it rebuilds the covered ones: a chunk
     * of the window's, which is then let go.
     */
    private static final int FOLD_EVERY = 256;

    // The roots: a window (a streamed check) or the whole tree (replay, which hands it over).
    private final @Nullable RootWindow window;
    private final @Nullable MerkleTree tree;
    private long first;
    private boolean sealedSeen;
    private Optional<SignedNote> latest = Optional.empty();
    private long latestSize;
    private int checked;

    /**
     * A check of a journal's records from its start.
     *
     * @param emptyFirst the sequence of leaf 0 when the journal records no receipt
     */
    public Checker(long emptyFirst) {
      this(emptyFirst, new RootWindow(), null);
    }

    private Checker(long emptyFirst, @Nullable RootWindow window, @Nullable MerkleTree tree) {
      this.first = emptyFirst;
      this.window = window;
      this.tree = tree;
    }

    /**
     * A check that continues from a snapshot, as a start seeds its log from one (SPEC.md §60.8,
     * §65): {@code receipts} are the receipt ids the snapshot holds, from the journal's first, and
     * {@code checkpoint} the last checkpoint recorded before it, which they must reproduce under
     * {@code logKey}. The records after the snapshot then go to {@link #accept}, each checkpoint
     * among them checked against the tree over every receipt, the covered ones included; a
     * checkpoint the snapshot holds counts as one checked. The covered receipts are folded into the
     * window as they are read, so it holds, as from the start, the tree's edge at that checkpoint's
     * size and the receipts after it.
     *
     * @throws JournalException {@code REPLAY_REFUSED} (naming no record) if the snapshot holds a
     *     checkpoint but no receipt, or a checkpoint not signed by {@code logKey} or not reproduced
     *     by its receipts
     */
    public static Checker resume(
        ReceiptIds receipts, Optional<SignedNote> checkpoint, NoteVerifierKey logKey)
        throws JournalException {
      Checker c = new Checker(0);
      RootWindow w = Objects.requireNonNull(c.window);
      if (receipts.first() < 0) {
        if (checkpoint.isPresent()) {
          throw refused(-1, "the snapshot holds a checkpoint but no receipt");
        }
        return c;
      }
      Checkpoint cp = null;
      if (checkpoint.isPresent()) {
        try {
          cp = Checkpoint.open(checkpoint.get(), logKey);
        } catch (LogException e) {
          throw refused(
              -1, "the snapshot holds a checkpoint the steward did not sign: " + e.getMessage());
        }
      }
      // No later checkpoint signs less than the snapshot's, so the leaves below it are folded.
      long foldTo = cp == null ? 0 : Math.min(cp.size(), receipts.size());
      c.first = receipts.first();
      c.sealedSeen = true;
      try {
        for (long s = receipts.first(); s < receipts.first() + receipts.size(); s++) {
          w.append(receipts.get(s).orElseThrow().bytes());
          if (w.size() % FOLD_EVERY == 0 && w.size() <= foldTo) {
            w.advanceTo(w.size());
          }
        }
        if (cp != null) {
          c.take(cp, checkpoint.get(), -1, "the snapshot holds");
        }
      } catch (LogException e) {
        throw new IllegalStateException("a fold at or below the checkpoint is in the window", e);
      }
      return c;
    }

    /**
     * Takes the next record: a receipt becomes the next leaf; a checkpoint is checked against the
     * tree so far and against {@code logKey}, which only a checkpoint needs (a caller that learns
     * the key from the first checkpoint passes null before it).
     *
     * @throws JournalException {@code REPLAY_REFUSED} naming the record, as {@link #replay}
     * @throws NullPointerException if {@code logKey} is null at a checkpoint
     */
    public void accept(JournalRecord r, @Nullable NoteVerifierKey logKey) throws JournalException {
      switch (r.entry()) {
        case JournalEntry.Sealed s -> {
          if (!sealedSeen) {
            // Leaf 0 is the first receipt the journal records (an archived journal starts late).
            first = s.sequence();
            sealedSeen = true;
          }
          long due = first + size();
          if (s.sequence() != due) {
            throw refused(r.seq(), "records receipt " + s.sequence() + " where " + due + " is due");
          }
          if (tree != null) {
            tree.append(s.envelopeId().bytes());
          } else {
            Objects.requireNonNull(window).append(s.envelopeId().bytes());
          }
        }
        case JournalEntry.Checkpoint c -> {
          Objects.requireNonNull(logKey, "a checkpoint is checked against the steward's log key");
          Checkpoint cp;
          try {
            cp = Checkpoint.open(c.note(), logKey);
          } catch (LogException e) {
            throw refused(
                r.seq(), "records a checkpoint the steward did not sign: " + e.getMessage());
          }
          take(cp, c.note(), r.seq(), "records");
          checkSeal(r, c, logKey.key());
        }
        default -> {
          // not part of the log
        }
      }
    }

    private long size() {
      return tree != null ? tree.size() : Objects.requireNonNull(window).size();
    }

    /**
     * Checks the signed checkpoint {@code cp} ({@code note}) against the receipts so far and takes
     * it as the latest; {@code seq} names its record (-1: none), {@code holder} what holds it.
     */
    private void take(Checkpoint cp, SignedNote note, long seq, String holder)
        throws JournalException {
      try {
        if (tree != null) {
          CheckpointRules.check(cp, tree, latestSize);
        } else {
          RootWindow w = Objects.requireNonNull(window);
          CheckpointRules.check(cp, w.size(), latestSize, w::root);
        }
      } catch (LogException e) {
        // The start's own rules and words (LogKeeper), so that verify and a start agree.
        throw refused(
            seq,
            holder
                + " a checkpoint the journal's receipts do not reproduce (edited or cut"
                + " journal?): "
                + e.getMessage());
      }
      latest = Optional.of(note);
      latestSize = cp.size();
      checked++;
      if (window != null) {
        // No later checkpoint may sign a smaller size, so the roots below this one are let go.
        try {
          window.advanceTo(latestSize);
        } catch (LogException e) {
          throw new IllegalStateException("a checked checkpoint's size is in the window", e);
        }
      }
    }

    /** The sequence of leaf 0: the first receipt taken, else the one given at the start. */
    public long firstSequence() {
      return first;
    }

    /** The last checkpoint taken, as recorded (with its cosignature lines). */
    public Optional<SignedNote> latest() {
      return latest;
    }

    /** How many {@code Checkpoint} records were checked. */
    public int checkpoints() {
      return checked;
    }

    /**
     * The bytes it holds for the checks to come: the receipts' leaf hashes after the latest
     * checkpoint and the tree's edge there ({@link RootWindow#heldBytes}). For tests of what a
     * streamed verify keeps.
     */
    public long heldBytes() {
      return window != null ? window.heldBytes() : 0;
    }
  }

  /**
   * Checks a {@code Checkpoint} record's journal seal against the place it actually holds: its
   * sequence and its {@code prev}. Every record before it is then fixed by the steward's key.
   *
   * @throws JournalException {@code REPLAY_REFUSED} naming the record if the seal does not verify
   */
  public static void checkSeal(
      JournalRecord r, JournalEntry.Checkpoint c, org.meshjava.core.crypto.VerificationKey key)
      throws JournalException {
    if (!(c.seal() instanceof JournalSeal.Signed seal) || !seal.verifies(key, r.seq(), r.prev())) {
      throw refused(
          r.seq(), "checkpoint's journal seal does not verify: records before it were changed");
    }
  }

  private static JournalException refused(long seq, String detail) {
    return new JournalException(JournalException.Reason.REPLAY_REFUSED, seq, detail, null);
  }
}
