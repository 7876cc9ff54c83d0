package org.meshjava.steward;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.meshjava.core.EngineException;
import org.meshjava.core.EngineResult;
import org.meshjava.core.ForwardingEngine;
import org.meshjava.core.IdentifiedRequest;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.TokenSequence;
import org.meshjava.jcp.GrantChain;
import org.meshjava.journal.JournalEntry;

/**
 * A serve encodes its request once (SPEC.md 10.3) and hands that one encoding and id to the grant's
 * journal record, the engine and the receipt; an engine written against the request alone, or a
 * decorator that overrides that form, still serves as before.
 */
class RequestEncodedOnceTest {
  private static final long BUDGET = 1_000_000;
  private static final long CEILING = 50_000;

  private final GrantFixture f = new GrantFixture();

  /** The reference engine, keeping what the steward handed it. */
  private static final class Keeping extends ForwardingEngine {
    final List<IdentifiedRequest> handed = new ArrayList<>();

    Keeping() {
      super(GrantFixture.ref());
    }

    @Override
    public EngineResult serve(IdentifiedRequest request, TokenSequence prompt)
        throws EngineException {
      handed.add(request);
      return delegate().serve(request, prompt);
    }
  }

  /** A decorator of the request form only: its override must still be what serves. */
  private static final class CountingRequestForm extends ForwardingEngine {
    final AtomicInteger serves = new AtomicInteger();

    CountingRequestForm() {
      super(GrantFixture.ref());
    }

    @Override
    public EngineResult serve(ServeRequest request, TokenSequence prompt) throws EngineException {
      serves.incrementAndGet();
      return super.serve(request, prompt);
    }
  }

  @Test
  void aGrantedServe_handsTheJournalAndTheEngineOneEncoding_whoseIdTheReceiptNames()
      throws Exception {
    GrantChain chain = f.chain(BUDGET);
    Keeping engine = new Keeping();
    DurableMemoryJournal journal = new DurableMemoryJournal();
    try (Steward s = f.bare(journal).backend(engine).build()) {
      ServeRequest req = GrantFixture.request("encoded once", 3, CEILING);
      ServeResult r = s.serve(req, GrantFixture.payload(req), f.present(chain, req));

      assertThat(engine.handed).hasSize(1);
      IdentifiedRequest handed = engine.handed.get(0);
      assertThat(handed.request()).isSameAs(req);
      assertThat(handed.id()).isEqualTo(req.id()).isEqualTo(r.receipt().requestId());
      JournalEntry.Authorised decided =
          journal.records().stream()
              .map(rec -> rec.entry())
              .filter(JournalEntry.Authorised.class::isInstance)
              .map(JournalEntry.Authorised.class::cast)
              .findFirst()
              .orElseThrow();
      assertThat(decided.identified()).isSameAs(handed);
    }
  }

  @Test
  void aDecoratorOfTheRequestForm_isStillTheOneServing() throws Exception {
    CountingRequestForm engine = new CountingRequestForm();
    try (Steward s = f.bare(new DurableMemoryJournal()).backend(engine).build()) {
      ServeRequest req = GrantFixture.request("decorated", 3, CEILING);
      ServeResult r = s.serve(req, GrantFixture.payload(req));

      assertThat(engine.serves).hasValue(1);
      assertThat(r.receipt().requestId()).isEqualTo(req.id());
      assertThat(r.tokens())
          .isEqualTo(GrantFixture.ref().serve(req, GrantFixture.payload(req)).tokens());
    }
  }
}
