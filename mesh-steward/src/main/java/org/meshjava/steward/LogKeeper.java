package org.meshjava.steward;

import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.meshjava.core.ContentId;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.journal.Journal;
import org.meshjava.journal.JournalEntry;
import org.meshjava.journal.JournalException;
import org.meshjava.journal.JournalRecord;
import org.meshjava.journal.ReceiptIds;
import org.meshjava.receipt.ChainHead;
import org.meshjava.receipt.tlog.LogException;
import org.meshjava.receipt.tlog.NoteVerifierKey;
import org.meshjava.receipt.tlog.SignedNote;
import org.meshjava.receipt.tlog.TransparencyLog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the steward's transparency log (SPEC.md §65): rebuilds it from the journal at start,
 * appends each sealed receipt in chain order, and signs, journals and publishes checkpoints (every
 * {@code every} receipts, on demand, on close) and witness cosignatures. A checkpoint is journalled
 * before it is published, so none is handed out that a restart would not find and check.
 *
 * <p>Thread-safe: signing and cosigning are serialised on the keeper, so checkpoints reach the
 * journal in size order.
 */
final class LogKeeper {
  private static final Logger LOG = LoggerFactory.getLogger(LogKeeper.class);

  private final TransparencyLog log;
  private final Journal journal;
  private final int every;

  private LogKeeper(TransparencyLog log, Journal journal, int every) {
    this.log = log;
    this.journal = journal;
    this.every = every;
  }

  /**
   * Rebuilds the log from {@code records}: every {@code Sealed} record's envelope id in order, and
   * every {@code Checkpoint} record checked against the tree as it stood at that point.
   *
   * @throws JournalException {@code REPLAY_REFUSED} naming the record when a checkpoint is not
   *     reproduced (an edited, reordered or cut journal) or receipts are out of sequence
   */
  static LogKeeper rebuild(
      SigningKey key,
      List<JournalRecord> records,
      ChainHead start,
      Set<NoteVerifierKey> witnesses,
      Journal journal,
      int every)
      throws JournalException {
    Rebuilder r = new Rebuilder(key, witnesses);
    for (JournalRecord each : records) {
      r.accept(each);
    }
    return r.finish(start, journal, every);
  }

  /**
   * Rebuilds the log as the journal streams past, from the start or from a snapshot's receipts
   * ({@link #seed}); holds only the tree, never the records.
   */
  static final class Rebuilder {
    private final SigningKey key;
    private final Set<NoteVerifierKey> witnesses;
    private @Nullable TransparencyLog log;

    Rebuilder(SigningKey key, Set<NoteVerifierKey> witnesses) {
      this.key = key;
      this.witnesses = witnesses;
    }

    /**
     * Starts from a snapshot: its receipts, in order, and the last checkpoint it recorded, which
     * the tree they build must reproduce.
     *
     * @throws JournalException {@code REPLAY_REFUSED} if it does not
     */
    void seed(ReceiptIds receipts, Optional<SignedNote> checkpoint) throws JournalException {
      if (receipts.first() < 0) {
        if (checkpoint.isPresent()) {
          throw refused(-1, "the snapshot holds a checkpoint but no receipt");
        }
        return;
      }
      TransparencyLog l = new TransparencyLog(key, receipts.first(), witnesses);
      for (long s = receipts.first(); s < receipts.first() + receipts.size(); s++) {
        l.append(s, receipts.get(s).orElseThrow());
      }
      if (checkpoint.isPresent()) {
        try {
          l.publish(checkpoint.get());
        } catch (LogException e) {
          throw refused(
              -1, "the snapshot's checkpoint is not reproduced by its receipts: " + e.getMessage());
        }
      }
      log = l;
    }

    /** Takes the next record. */
    void accept(JournalRecord r) throws JournalException {
      switch (r.entry()) {
        case JournalEntry.Sealed s -> {
          TransparencyLog l = log;
          if (l == null) {
            l = new TransparencyLog(key, s.sequence(), witnesses);
            log = l;
          }
          long due = l.firstSequence() + l.size();
          if (s.sequence() != due) {
            throw refused(r.seq(), "records receipt " + s.sequence() + " where " + due + " is due");
          }
          l.append(s.sequence(), s.envelopeId());
        }
        case JournalEntry.Checkpoint c -> {
          TransparencyLog l = log;
          if (l == null) {
            throw refused(r.seq(), "records a checkpoint before any receipt");
          }
          try {
            l.publish(c.note());
          } catch (LogException e) {
            throw refused(
                r.seq(),
                "records a checkpoint the journal's receipts do not reproduce (edited or cut"
                    + " journal?): "
                    + e.getMessage());
          }
        }
        default -> {
          // not part of the log
        }
      }
    }

    /** The keeper, with the log starting at {@code start} if no receipt was recorded. */
    LogKeeper finish(ChainHead start, Journal journal, int every) {
      TransparencyLog l = log;
      if (l == null) {
        l = new TransparencyLog(key, start.nextSequence(), witnesses);
      }
      return new LogKeeper(l, journal, every);
    }
  }

  private static JournalException refused(long seq, String detail) {
    return new JournalException(JournalException.Reason.REPLAY_REFUSED, seq, detail, null);
  }

  /** Appends a receipt; called in chain order, right after its {@code Sealed} record is queued. */
  void append(long sequence, ContentId envelopeId) {
    log.append(sequence, envelopeId);
  }

  /** After a serve: signs a checkpoint when the cadence is due. A failure is logged, not thrown. */
  void afterSeal() {
    if (log.size() % every == 0) {
      try {
        checkpoint();
      } catch (ServeException e) {
        LOG.warn("checkpoint at size {} not journalled: {}", log.size(), e.getMessage());
      }
    }
  }

  /** Signs, journals and publishes a checkpoint if the log grew; returns the latest. */
  synchronized Optional<SignedNote> checkpoint() throws ServeException {
    Optional<SignedNote> next = log.signNext();
    if (next.isPresent()) {
      record(next.get());
    }
    return log.latest();
  }

  /** Verifies, journals and publishes a witness's cosignature on the latest checkpoint. */
  synchronized SignedNote cosign(SignedNote cosigned) throws LogException, ServeException {
    SignedNote merged = log.cosigned(cosigned);
    if (!merged.equals(log.latest().orElseThrow())) {
      record(merged);
    }
    return log.latest().orElseThrow();
  }

  private void record(SignedNote note) throws ServeException {
    try {
      journal.append(new JournalEntry.Checkpoint(note));
      log.publish(note);
    } catch (JournalException e) {
      throw new ServeException(
          ServeException.Reason.NOT_RECORDED,
          "the checkpoint could not be journalled, so it is not handed out: " + e.getMessage(),
          e);
    } catch (LogException e) {
      throw new IllegalStateException("a checkpoint this log just signed does not publish", e);
    }
  }

  /** On close: a last checkpoint, so the next start checks every receipt; failures logged. */
  void closing() {
    try {
      checkpoint();
    } catch (ServeException | RuntimeException e) {
      LOG.warn("closing checkpoint not journalled: {}", e.getMessage());
    }
  }

  TransparencyLog log() {
    return log;
  }
}
