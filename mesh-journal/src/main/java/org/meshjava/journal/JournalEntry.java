package org.meshjava.journal;

import java.time.Instant;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import org.meshjava.core.ContentId;
import org.meshjava.core.Energy;

/** What a journal record says (§2.2). A closed set: the three entries of the decision journal. */
public sealed interface JournalEntry
    permits JournalEntry.Authorised, JournalEntry.Debited, JournalEntry.Sealed {

  /**
   * A grant decision, written before the engine runs. Everything needed to decide it again on
   * replay: the presentation and the request (each as their canonical CBOR), the model the gate
   * decided over, the backend, and the decision time.
   *
   * @param presentation the presentation's canonical CBOR
   * @param request the request's canonical CBOR (its BLAKE3 is the request id)
   * @param model the content address of the chosen backend's weights, if it names one
   * @param backend the chosen backend's name
   * @param decidedAt the decision time, millisecond precision
   */
  record Authorised(
      byte[] presentation, byte[] request, Optional<ContentId> model, String backend, Instant decidedAt)
      implements JournalEntry {
    /** Validates and copies. */
    public Authorised {
      presentation = presentation.clone();
      request = request.clone();
      Objects.requireNonNull(model, "model");
      Objects.requireNonNull(backend, "backend");
      Objects.requireNonNull(decidedAt, "decidedAt");
      if (decidedAt.getNano() % 1_000_000 != 0) {
        throw new IllegalArgumentException("decision times are recorded to the millisecond");
      }
    }

    @Override
    public byte[] presentation() {
      return presentation.clone();
    }

    @Override
    public byte[] request() {
      return request.clone();
    }

    /** The request id: BLAKE3 of the request's canonical CBOR. */
    public ContentId requestId() {
      return ContentId.ofBytes(request);
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Authorised a
          && Arrays.equals(presentation, a.presentation)
          && Arrays.equals(request, a.request)
          && model.equals(a.model)
          && backend.equals(a.backend)
          && decidedAt.equals(a.decidedAt);
    }

    @Override
    public int hashCode() {
      return Objects.hash(Arrays.hashCode(presentation), Arrays.hashCode(request), model, backend, decidedAt);
    }

    @Override
    public String toString() {
      return "Authorised[request " + requestId() + ", backend " + backend + ", model "
          + model.map(Object::toString).orElse("-") + ", at " + decidedAt + ", presentation "
          + HexFormat.of().formatHex(presentation, 0, Math.min(8, presentation.length)) + "…]";
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
   * A receipt about to be handed out, written for every receipt, granted or not (§2.2).
   *
   * @param sequence the receipt's chain sequence
   * @param envelopeId the content id of its envelope
   * @param authorised the sequence of the {@link Authorised} record, for a granted serve
   */
  record Sealed(long sequence, ContentId envelopeId, OptionalLong authorised)
      implements JournalEntry {
    /** Validates the entry. */
    public Sealed {
      if (sequence < 0) {
        throw new IllegalArgumentException("sequence must be non-negative");
      }
      Objects.requireNonNull(envelopeId, "envelopeId");
      Objects.requireNonNull(authorised, "authorised");
    }
  }
}
