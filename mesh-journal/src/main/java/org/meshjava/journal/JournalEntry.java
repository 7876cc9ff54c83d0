package org.meshjava.journal;

import java.time.Instant;
import java.util.Arrays;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import org.meshjava.core.ContentId;
import org.meshjava.core.Energy;
import org.meshjava.core.IdentifiedRequest;
import org.meshjava.core.ServeRequest;
import org.meshjava.jcp.GrantChain;
import org.meshjava.jcp.Presentation;
import org.meshjava.jcp.Revocation;
import org.meshjava.receipt.Envelope;

/**
 * What a journal record says (§2.2). A closed set: the decision journal's {@code Authorised},
 * {@code Debited} and {@code Sealed}; the {@code Chain} carrier; and the security decisions a
 * restart must not forget: {@code Suspended} (on a receipt or on a checkpoint), {@code Resumed} and
 * {@code Revoked} (SPEC.md §60.2); and the transparency log's signed {@code Checkpoint}s (SPEC.md
 * §65).
 *
 * <p>Every entry is an immutable record.
 */
public sealed interface JournalEntry
    permits JournalEntry.Authorised,
        JournalEntry.Chain,
        JournalEntry.Debited,
        JournalEntry.Sealed,
        JournalEntry.Suspended,
        JournalEntry.SuspendedByCheckpoint,
        JournalEntry.Resumed,
        JournalEntry.Revoked,
        JournalEntry.Checkpoint {

  /**
   * A grant decision, written before the engine runs. Everything needed to decide it again on
   * replay: the presentation, the request, the model the gate decided over, the backend, and the
   * decision time.
   *
   * <p>The constructor throws {@link IllegalArgumentException} for a {@code decidedAt} with a part
   * finer than the millisecond or outside what the record can carry.
   *
   * <p>The request travels with its canonical encoding and id ({@link IdentifiedRequest}), which a
   * steward computed once for the serve: the record is written from those bytes rather than from
   * the request encoded again. {@link #request()} is the request itself.
   *
   * @param presentation the presentation the caller made
   * @param identified the request it was decided for, with its encoding and id
   * @param model the content address of the chosen backend's weights, if it names one
   * @param backend the chosen backend's name
   * @param decidedAt the decision time, millisecond precision, from {@link #EARLIEST} to {@link
   *     #LATEST}
   */
  record Authorised(
      Presentation presentation,
      IdentifiedRequest identified,
      Optional<ContentId> model,
      String backend,
      Instant decidedAt)
      implements JournalEntry {
    /**
     * The earliest decision time a record can carry: {@code decided_at_ms} is an unsigned count of
     * milliseconds (SPEC.md §60.2), so nothing before the epoch.
     */
    public static final Instant EARLIEST = Instant.EPOCH;

    /**
     * The latest decision time a record can carry: {@code decided_at_ms} is at most 2^63 − 1
     * milliseconds, about the year 292,278,994, far short of the latest {@link Instant}.
     */
    public static final Instant LATEST = Instant.ofEpochMilli(Long.MAX_VALUE);

    /** Validates the entry. */
    public Authorised {
      Objects.requireNonNull(presentation, "presentation");
      Objects.requireNonNull(identified, "request");
      Objects.requireNonNull(model, "model");
      Objects.requireNonNull(backend, "backend");
      Objects.requireNonNull(decidedAt, "decidedAt");
      if (!decidedAt.truncatedTo(java.time.temporal.ChronoUnit.MILLIS).equals(decidedAt)) {
        throw new IllegalArgumentException("decision times are recorded to the millisecond");
      }
      // Refused here, not when the record is encoded: an entry that cannot be written would
      // otherwise fail inside the journal, after it had given the record its place in the chain.
      if (decidedAt.isBefore(EARLIEST) || decidedAt.isAfter(LATEST)) {
        throw new IllegalArgumentException(
            "decision time "
                + decidedAt
                + " cannot be recorded: decided_at_ms carries "
                + EARLIEST
                + " to "
                + LATEST);
      }
    }

    /**
     * The entry for {@code request}, encoded and hashed here ({@link IdentifiedRequest#of}); the
     * form for a caller that holds the request alone.
     */
    public Authorised(
        Presentation presentation,
        ServeRequest request,
        Optional<ContentId> model,
        String backend,
        Instant decidedAt) {
      this(presentation, identify(request), model, backend, decidedAt);
    }

    private static IdentifiedRequest identify(ServeRequest request) {
      return IdentifiedRequest.of(Objects.requireNonNull(request, "request"));
    }

    /** The request it was decided for. */
    public ServeRequest request() {
      return identified.request();
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Authorised a
          && Arrays.equals(presentation.encode(), a.presentation.encode())
          && identified.equals(a.identified)
          && model.equals(a.model)
          && backend.equals(a.backend)
          && decidedAt.equals(a.decidedAt);
    }

    @Override
    public int hashCode() {
      return Objects.hash(identified.request(), model, backend, decidedAt);
    }

    @Override
    public String toString() {
      return "Authorised[request "
          + identified.id()
          + ", caller "
          + presentation.caller()
          + ", grant "
          + presentation.grantId()
          + ", backend "
          + backend
          + ", model "
          + model.map(Object::toString).orElse("-")
          + ", at "
          + decidedAt
          + "]";
    }
  }

  /**
   * A grant chain, recorded once, before the first authorisation that presents it; later
   * authorisations name it by id rather than repeat it. The journal writes these itself.
   *
   * @param chain the chain
   */
  record Chain(GrantChain chain) implements JournalEntry {
    /** Validates the entry. */
    public Chain {
      Objects.requireNonNull(chain, "chain");
    }

    /** The chain's id in the journal: BLAKE3 of its canonical encoding. */
    public ContentId id() {
      return ContentId.ofBytes(chain.encode());
    }
  }

  /**
   * The debit of a granted serve, written after the debit (§2.2).
   *
   * @param authorised the sequence of the {@link Authorised} record this debit settles
   * @param energy the metered figure
   * @param debitedUj what was debited on every link of the chain
   * @param breach the denial label when the debit breached a caveat
   */
  record Debited(long authorised, Energy energy, long debitedUj, Optional<String> breach)
      implements JournalEntry {
    /** Validates the entry. */
    public Debited {
      if (authorised < 0) {
        throw new IllegalArgumentException("authorised must be a record sequence");
      }
      Objects.requireNonNull(energy, "energy");
      if (debitedUj < 0) {
        throw new IllegalArgumentException("debitedUj must be non-negative");
      }
      Objects.requireNonNull(breach, "breach");
    }
  }

  /**
   * A receipt about to be handed out, written for every receipt, granted or not (§2.2). A granted
   * receipt's record also carries the envelope itself: its signed energy figure is what replay
   * holds the serve's {@link Debited} record to, so a debit edited after the fact is refused
   * (SPEC.md §60.3).
   *
   * @param sequence the receipt's chain sequence
   * @param envelopeId the content id of its envelope
   * @param authorised the sequence of the {@link Authorised} record, for a granted serve
   * @param envelope the sealed envelope; present exactly when {@code authorised} is
   */
  record Sealed(
      long sequence, ContentId envelopeId, OptionalLong authorised, Optional<Envelope> envelope)
      implements JournalEntry {
    /** Validates the entry. */
    public Sealed {
      if (sequence < 0) {
        throw new IllegalArgumentException("sequence must be non-negative");
      }
      Objects.requireNonNull(envelopeId, "envelopeId");
      Objects.requireNonNull(authorised, "authorised");
      Objects.requireNonNull(envelope, "envelope");
      if (authorised.isPresent() != envelope.isPresent()) {
        throw new IllegalArgumentException(
            "a Sealed record carries the envelope exactly when the receipt is granted");
      }
      if (envelope.isPresent() && !envelope.get().id().equals(envelopeId)) {
        throw new IllegalArgumentException("envelope_id is not the BLAKE3 of the envelope");
      }
    }

    /** The record of an ungranted receipt: its sequence and envelope id. */
    public Sealed(long sequence, ContentId envelopeId) {
      this(sequence, envelopeId, OptionalLong.empty(), Optional.empty());
    }

    /**
     * The record of a granted receipt, settling the authorisation recorded at {@code authorised}.
     */
    public static Sealed granted(long sequence, Envelope envelope, long authorised) {
      return new Sealed(
          sequence, envelope.id(), OptionalLong.of(authorised), Optional.of(envelope));
    }
  }

  /**
   * Grants suspended (§2.2): the witness was shown a receipt this steward sealed that the journal
   * did not hold, so records were cut after it left. Carries that receipt's envelope as the
   * evidence. Replay restores the suspension; only a later {@link Resumed} lifts it.
   *
   * @param sequence the shown receipt's chain sequence
   * @param envelope its envelope
   */
  record Suspended(long sequence, Envelope envelope) implements JournalEntry {
    /** Validates the entry. */
    public Suspended {
      if (sequence < 0) {
        throw new IllegalArgumentException("sequence must be non-negative");
      }
      Objects.requireNonNull(envelope, "envelope");
    }
  }

  /**
   * Grants suspended (§2.2, SPEC.md §60.4) on a checkpoint of the transparency log that this
   * steward signed and its log does not hold: a larger tree than the log now has, or the same or a
   * smaller size with another root. The steward signed a history its journal no longer holds, so
   * the journal (with its snapshots) was restored from an older copy, or another journal runs under
   * the same key. Carries the checkpoint as the evidence; it is written as a {@code Suspended}
   * record with a {@code checkpoint} key instead of a receipt's (a later addition to the format:
   * versions before it refuse such a journal, naming the record and the key). Replay checks the
   * signature and restores the suspension; only a later {@link Resumed} lifts it.
   *
   * @param checkpoint the signed checkpoint shown, as shown (with any cosignature lines)
   */
  record SuspendedByCheckpoint(org.meshjava.receipt.tlog.SignedNote checkpoint)
      implements JournalEntry {
    /** Validates the entry. */
    public SuspendedByCheckpoint {
      Objects.requireNonNull(checkpoint, "checkpoint");
    }
  }

  /**
   * An operator lifted the suspension in force, after restoring the journal ({@code mesh journal
   * resume-grants}).
   *
   * @param note what the operator did, in their words (1 to 1000 characters)
   */
  record Resumed(String note) implements JournalEntry {
    /** Validates the entry. */
    public Resumed {
      Objects.requireNonNull(note, "note");
      if (note.isBlank() || note.length() > 1000) {
        throw new IllegalArgumentException("a resumption note is 1 to 1000 characters, not blank");
      }
    }
  }

  /**
   * An issuer's signed revocation (SPEC.md 30 §11), recorded before it takes effect. Replay
   * verifies it again and applies it in record order, so decisions recorded before it stand.
   *
   * @param revocation the statement
   */
  record Revoked(Revocation revocation) implements JournalEntry {
    /** Validates the entry. */
    public Revoked {
      Objects.requireNonNull(revocation, "revocation");
    }
  }

  /**
   * A checkpoint of the transparency log the steward signed (SPEC.md §65), with the witness
   * cosignatures it had accepted when written; recorded before it is handed out. On restart the
   * tree rebuilt from the {@link Sealed} records must reproduce the last one, signature and root,
   * or the steward does not start. Its {@link JournalSeal} binds the records before it to the
   * steward's key.
   *
   * @param note the signed checkpoint
   * @param seal the steward's signature over this record's place: {@link JournalSeal.Signed} as
   *     recorded, or {@link JournalSeal.ToSign} when handed to the journal, which signs it
   */
  record Checkpoint(org.meshjava.receipt.tlog.SignedNote note, JournalSeal seal)
      implements JournalEntry {
    /** Validates the entry. */
    public Checkpoint {
      Objects.requireNonNull(note, "note");
      Objects.requireNonNull(seal, "seal");
    }
  }
}
