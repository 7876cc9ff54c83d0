package org.meshjava.journal.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.meshjava.core.ContentId;
import org.meshjava.core.Fidelity;
import org.meshjava.core.ServeBounds;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.jcp.GrantChain;
import org.meshjava.jcp.Jcp;
import org.meshjava.jcp.Presentation;
import org.meshjava.journal.JournalEntry;
import org.meshjava.journal.JournalRecord;

/** {@link RecordChain#advance} moves its state only once every record of an entry is built. */
class RecordChainTest {
  private static final Instant T0 = Instant.parse("2026-11-29T00:00:00Z");

  private static JournalEntry.Authorised authorisedOnANewChain() throws Exception {
    SigningKey caller = Jcp.newKey();
    // The presenter is the leaf's issuer: a root from the caller to a steward.
    GrantChain chain =
        Jcp.issueRoot(
            caller, Jcp.identity(Jcp.newKey()), 1_000_000, T0.minusSeconds(60), T0.plusSeconds(60));
    ServeRequest request =
        ServeRequest.generation(
            ContentId.ofBytes(new byte[] {1}), 3, new ServeBounds(4, Fidelity.F1, 10_000));
    return new JournalEntry.Authorised(
        Presentation.sign(caller, chain, request.id()), request, Optional.empty(), "b", T0);
  }

  /**
   * Regression: the {@code Chain} record was encoded and the state moved past it (sequence, last
   * hash, chain noted as recorded) before the authorisation's own record was built; a throw there
   * (the encoder out of memory) left the journal chaining from a line it never queued, and the
   * chain noted as written, so no later authorisation on it would write it.
   */
  @Test
  void advance_thatThrowsOnTheSecondRecord_movesNothing_andTheRetryWritesBoth() throws Exception {
    boolean[] fail = {true};
    RecordChain chain =
        new RecordChain(
            new RecordCodec(),
            0,
            Optional.empty(),
            (r, id) -> {
              if (fail[0] && r.entry() instanceof JournalEntry.Authorised) {
                throw new OutOfMemoryError("staged: no room to encode the record");
              }
              return RecordCodec.encode(r, id);
            });
    JournalEntry.Authorised entry = authorisedOnANewChain();

    assertThatThrownBy(() -> chain.advance(entry)).isInstanceOf(OutOfMemoryError.class);
    assertThat(chain.next()).isEqualTo(0);
    assertThat(chain.last()).isEmpty();

    fail[0] = false;
    List<RecordChain.Encoded> out = chain.advance(entry);
    List<JournalRecord> records = out.stream().map(RecordChain.Encoded::record).toList();
    assertThat(records).extracting(JournalRecord::seq).containsExactly(0L, 1L);
    assertThat(records.getFirst().entry()).isInstanceOf(JournalEntry.Chain.class);
    assertThat(records.getFirst().prev()).isEmpty();
    assertThat(records.get(1).prev()).contains(ContentId.ofBytes(out.getFirst().line()));
    assertThat(chain.next()).isEqualTo(2);
    assertThat(chain.last()).contains(ContentId.ofBytes(out.get(1).line()));
  }

  /**
   * The chain's id is hashed once per authorisation and handed to the encoder: the lines are the
   * bytes {@link RecordCodec#encode(JournalRecord)} writes when it hashes the chain itself, for the
   * {@code Chain} record and the {@code Authorised} one after it, and for a second authorisation on
   * the chain already recorded.
   */
  @Test
  void advance_writesTheChainIdItHashedOnce_asTheCodecWouldHashIt() throws Exception {
    RecordChain chain = new RecordChain(new RecordCodec(), 0, Optional.empty());
    JournalEntry.Authorised entry = authorisedOnANewChain();
    JournalEntry.Authorised again =
        new JournalEntry.Authorised(
            entry.presentation(), entry.request(), Optional.empty(), "b", T0.plusSeconds(1));

    List<RecordChain.Encoded> first = chain.advance(entry);
    List<RecordChain.Encoded> second = chain.advance(again);

    assertThat(first).hasSize(2);
    assertThat(first.get(0).record().entry()).isInstanceOf(JournalEntry.Chain.class);
    assertThat(second).hasSize(1);
    for (RecordChain.Encoded e : List.of(first.get(0), first.get(1), second.get(0))) {
      assertThat(new String(e.line(), java.nio.charset.StandardCharsets.UTF_8))
          .as("record %d", e.record().seq())
          .isEqualTo(
              new String(RecordCodec.encode(e.record()), java.nio.charset.StandardCharsets.UTF_8))
          .contains(ContentId.ofBytes(entry.presentation().chain().encode()).hex());
    }
  }
}
