package org.meshjava.openai;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.meshjava.core.CostProfile;
import org.meshjava.core.EngineResult;
import org.meshjava.core.Fidelity;
import org.meshjava.core.Recipe;
import org.meshjava.core.ServeOutcome;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.ServingEngine;
import org.meshjava.core.TokenSequence;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.core.identity.DidKey;
import org.meshjava.jcp.GrantChain;
import org.meshjava.jcp.Jcp;
import org.meshjava.jcp.Presentation;
import org.meshjava.jcp.PresentationNonce;
import org.meshjava.journal.FileJournal;
import org.meshjava.receipt.MeshReceipt;

class GrantedServeTest {
  private final SigningKey caller = Jcp.newKey();
  private final Fixture f = new Fixture();

  @AfterEach
  void close() {
    f.close();
  }

  private GrantChain grant(DidKey steward, long budgetUj) throws Exception {
    Instant now = Instant.now();
    return Jcp.issueRoot(
        caller, steward, budgetUj, now.minusSeconds(60), now.plus(Duration.ofHours(1)));
  }

  private static ObjectNode body(String prompt, String ceiling) {
    ObjectNode body = Fixture.chat(prompt);
    ObjectNode md = body.putObject("metadata");
    md.put("fidelity_floor", "F1");
    if (ceiling != null) {
      md.put("joule_ceiling_uj", ceiling);
    }
    return body;
  }

  /** Signs a presentation for the request the body derives to, and adds it to the body. */
  private ObjectNode present(GrantChain chain, ObjectNode body) throws Exception {
    ServeRequest request = GrantedServeRequest.derive(body);
    body.put("jcp_presentation", Jcp.present(caller, chain, request).toHex());
    return body;
  }

  @Test
  void granted_builtFromGrantedServeRequest_isServedAndDebited() throws Exception {
    GrantChain chain = grant(f.steward.identity(), 5_000_000);
    ObjectNode body = present(chain, body("Granted hello.", "200000"));
    Fixture.Answer a = f.post("/v1/chat/completions", body);
    assertThat(a.status()).as(a.body()).isEqualTo(200);
    MeshReceipt receipt = Fixture.verifiedReceipt(a.json().get("usage").get("energy"));
    assertThat(receipt.grantId()).contains(chain.leaf().id().contentId());
    assertThat(f.steward.spend().remainingUj(chain)).isEqualTo(5_000_000 - receipt.energy().uj());
  }

  @Test
  void granted_responsesBody_isServedToo() throws Exception {
    GrantChain chain = grant(f.steward.identity(), 5_000_000);
    ObjectNode body = Fixture.JSON.createObjectNode();
    body.put("model", "auto");
    body.put("input", "Granted over responses.");
    body.put("max_output_tokens", 4);
    body.putObject("metadata").put("joule_ceiling_uj", "100000");
    present(chain, body);
    Fixture.Answer a = f.post("/v1/responses", body);
    assertThat(a.status()).as(a.body()).isEqualTo(200);
  }

  /**
   * Regression: the refusal of a body changed after signing read "NOT_ISSUER: bad-signature: …",
   * sending a caller who is the issuer to check its keys instead of its body.
   */
  @Test
  void granted_bodyChangedAfterSigning_saysBadSignature_notThatTheCallerIsNotTheIssuer()
      throws Exception {
    GrantChain chain = grant(f.steward.identity(), 5_000_000);
    ObjectNode body = present(chain, body("Original prompt.", "200000"));
    ((ObjectNode) body.get("messages").get(0)).put("content", "Tampered prompt.");
    String message =
        f.post("/v1/chat/completions", body).error(401, "bad-signature").get("message").asText();
    assertThat(message).startsWith("bad-signature: ").doesNotContain("NOT_ISSUER");
  }

  @Test
  void granted_bodyChangedAfterSigning_isRefused401() throws Exception {
    GrantChain chain = grant(f.steward.identity(), 5_000_000);
    ObjectNode body = present(chain, body("Original prompt.", "200000"));
    ((ObjectNode) body.get("messages").get(0)).put("content", "Tampered prompt.");
    f.post("/v1/chat/completions", body).error(401, "bad-signature");
    ObjectNode raised = present(chain, body("Original prompt.", "200000"));
    ((ObjectNode) raised.get("metadata")).put("joule_ceiling_uj", "300000");
    f.post("/v1/chat/completions", raised).error(401, "bad-signature");
    assertThat(f.steward.spend().remainingUj(chain)).isEqualTo(5_000_000);
  }

  @Test
  void granted_withoutItsOwnCeiling_is400NamingIt() throws Exception {
    GrantChain chain = grant(f.steward.identity(), 5_000_000);
    ObjectNode body = body("No ceiling.", null);
    // The caller cannot even derive it: the server default would enter the id unseen.
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> GrantedServeRequest.derive(body))
        .isInstanceOf(BindingException.class);
    ObjectNode withDefault = body("No ceiling.", "1000000");
    body.put(
        "jcp_presentation",
        Jcp.present(caller, chain, GrantedServeRequest.derive(withDefault)).toHex());
    JsonNode e = f.post("/v1/chat/completions", body).error(400, "missing_joule_ceiling");
    assertThat(e.get("param").asText()).isEqualTo("metadata.joule_ceiling_uj");
  }

  @Test
  void granted_presentedByAnotherThanTheIssuer_is401() throws Exception {
    GrantChain chain = grant(f.steward.identity(), 5_000_000);
    ObjectNode body = body("Not mine.", "200000");
    SigningKey thief = Jcp.newKey();
    ServeRequest request = GrantedServeRequest.derive(body);
    PresentationNonce nonce = PresentationNonce.random();
    byte[] sig =
        thief.sign(
            Presentation.signedPayload(
                request.id(), chain.leaf().id(), Jcp.identity(thief), nonce));
    body.put("jcp_presentation", Presentation.of(chain, Jcp.identity(thief), nonce, sig).toHex());
    f.post("/v1/chat/completions", body).error(401, "not-issuer");
  }

  @Test
  void granted_heldByAnotherSteward_is403WrongHolder() throws Exception {
    GrantChain chain = grant(Jcp.identity(Jcp.newKey()), 5_000_000);
    f.post("/v1/chat/completions", present(chain, body("Elsewhere.", "200000")))
        .error(403, "wrong-holder");
  }

  @Test
  void granted_ceilingAboveWhatIsLeft_is403BudgetExhausted() throws Exception {
    GrantChain chain = grant(f.steward.identity(), 1_000);
    f.post("/v1/chat/completions", present(chain, body("Too dear.", "200000")))
        .error(403, "budget-exhausted");
  }

  /**
   * Regression: a granted body declaring {@code prompt_tokens} 0 for a long prompt was routed at a
   * ceiling covering only its output, then served and debited far beyond its grant's budget.
   */
  @Test
  void granted_promptTokensUnderstated_is422OverCeiling_andSpendsNothing() throws Exception {
    GrantChain chain = grant(f.steward.identity(), 1_000_000);
    ObjectNode body = body("x".repeat(5_000), "400");
    ((ObjectNode) body.get("metadata")).put("prompt_tokens", "0");
    JsonNode e = f.post("/v1/chat/completions", present(chain, body)).error(422, "over_ceiling");
    assertThat(e.get("param").asText()).isEqualTo("metadata");
    assertThat(f.steward.spend().remainingUj(chain)).isEqualTo(1_000_000);
  }

  @Test
  void granted_presentationSentTwice_isRefusedTheSecondTime() throws Exception {
    GrantChain chain = grant(f.steward.identity(), 5_000_000);
    ObjectNode body = present(chain, body("Once only.", "200000"));
    assertThat(f.post("/v1/chat/completions", body).status()).isEqualTo(200);
    f.post("/v1/chat/completions", body).error(403, "presentation-spent");
  }

  /** The {@code x-should-retry} header of the answer to {@code body} posted at {@code path}. */
  static Optional<String> shouldRetry(Fixture f, String path, JsonNode body) throws Exception {
    return f.http
        .send(
            HttpRequest.newBuilder(f.uri(path))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body.toString()))
                .build(),
            HttpResponse.BodyHandlers.discarding())
        .headers()
        .firstValue("x-should-retry");
  }

  /**
   * Regression: the witness took an envelope in upper case while an envelope id or a revocation in
   * upper case was refused. Every hex a request carries is held to one rule, lowercase.
   */
  @Test
  void witness_anEnvelopeInUpperCase_is400_namingEnvelopeHex_andSayingLowercaseHex()
      throws Exception {
    try (Fixture f = new Fixture(SigningKey.generate(), b -> {}, b -> {})) {
      JsonNode energy =
          f.post("/v1/chat/completions", Fixture.chat("Remember me."))
              .json()
              .get("usage")
              .get("energy");
      ObjectNode shown = Fixture.JSON.createObjectNode();
      shown.set("receipt", energy.get("receipt"));
      shown.put(
          "envelope_hex", energy.get("envelope_hex").asText().toUpperCase(java.util.Locale.ROOT));
      JsonNode error = f.post("/v1/mesh/witness", shown).error(400, "invalid_field");
      assertThat(error.get("message").asText()).contains("not lowercase hex: upper-case '");
      assertThat(error.get("param").asText()).isEqualTo("envelope_hex");
      shown.set("envelope_hex", energy.get("envelope_hex"));
      // A receipt that is not one is refused naming the receipt, with a good envelope beside it.
      ObjectNode broken = energy.get("receipt").deepCopy();
      broken.put("sequence", "zero");
      ObjectNode badReceipt = shown.deepCopy();
      badReceipt.set("receipt", broken);
      assertThat(
              f.post("/v1/mesh/witness", badReceipt)
                  .error(400, "invalid_field")
                  .get("param")
                  .asText())
          .isEqualTo("receipt");
      assertThat(f.post("/v1/mesh/witness", shown).status()).isEqualTo(200);
    }
  }

  @Test
  void witness_heldReceipt_is200_andACutJournal_is409ThenGrantsAre503(@TempDir Path tmp)
      throws Exception {
    SigningKey key = SigningKey.generate();
    JsonNode energy;
    try (Fixture first = new Fixture(key, b -> {}, b -> {})) {
      energy =
          first
              .post("/v1/chat/completions", Fixture.chat("Remember me."))
              .json()
              .get("usage")
              .get("energy");
      ObjectNode shown = Fixture.JSON.createObjectNode();
      shown.set("receipt", energy.get("receipt"));
      shown.set("envelope_hex", energy.get("envelope_hex"));
      Fixture.Answer held = first.post("/v1/mesh/witness", shown);
      assertThat(held.status()).as(held.body()).isEqualTo(200);
      assertThat(held.json().get("held").asBoolean()).isTrue();
    }
    ObjectNode shown = Fixture.JSON.createObjectNode();
    shown.set("receipt", energy.get("receipt"));
    shown.set("envelope_hex", energy.get("envelope_hex"));

    // The same key over a (durable) journal that lacks the receipt: as if records were cut.
    FileJournal restored = FileJournal.open(tmp.resolve("cut.journal"));
    try (Fixture cut = new Fixture(key, b -> b.journal(restored), b -> {})) {
      GrantChain chain = grant(cut.steward.identity(), 5_000_000);
      assertThat(
              cut.post("/v1/chat/completions", present(chain, body("Before.", "100000"))).status())
          .isEqualTo(200);
      // The journal may hold another receipt of that number (sealed after the cut): the envelope
      // is what it lacks, so the answer says so rather than only "cut".
      assertThat(
              cut.post("/v1/mesh/witness", shown)
                  .error(409, "receipt_not_held")
                  .get("message")
                  .asText())
          .contains("with this envelope")
          .contains("cut or changed");
      // Neither answer changes a second later, so the SDKs are told not to resend on their own.
      assertThat(shouldRetry(cut, "/v1/mesh/witness", shown)).contains("false");
      ObjectNode after = present(chain, body("After.", "100000"));
      cut.post("/v1/chat/completions", after).error(503, "grants_suspended");
      assertThat(shouldRetry(cut, "/v1/chat/completions", after)).contains("false");
      assertThat(cut.get("/v1/mesh/steward").json().get("grants_honoured").asBoolean()).isFalse();
      assertThat(cut.post("/v1/chat/completions", Fixture.chat("Ungranted still served.")).status())
          .isEqualTo(200);
    }
  }

  /**
   * Regression: a steward whose key outlives it, over an in-memory journal, honoured grants, so a
   * restart gave budgets and spent presentations back (§2.2). Now every grant is 503.
   */
  @Test
  void granted_onAKeyWithoutADurableJournal_is503JournalNotDurable_andUngrantedIsServed()
      throws Exception {
    try (Fixture keyed = new Fixture(SigningKey.generate(), b -> {}, b -> {})) {
      GrantChain chain = grant(keyed.steward.identity(), 5_000_000);
      keyed
          .post("/v1/chat/completions", present(chain, body("Granted.", "100000")))
          .error(503, "journal_not_durable");
      JsonNode who = keyed.get("/v1/mesh/steward").json();
      assertThat(who.get("grants_honoured").asBoolean()).isFalse();
      assertThat(who.get("grants_need_durable_journal").asText()).contains("durable");
      assertThat(keyed.post("/v1/chat/completions", Fixture.chat("Ungranted.")).status())
          .isEqualTo(200);
      assertThat(keyed.steward.head().nextSequence()).isEqualTo(1);
    }
  }

  @Test
  void granted_onAKeyWithAFileJournal_isServed(@TempDir Path tmp) throws Exception {
    FileJournal journal = FileJournal.open(tmp.resolve("steward.journal"));
    try (Fixture keyed = new Fixture(SigningKey.generate(), b -> b.journal(journal), b -> {})) {
      GrantChain chain = grant(keyed.steward.identity(), 5_000_000);
      assertThat(
              keyed
                  .post("/v1/chat/completions", present(chain, body("Granted.", "100000")))
                  .status())
          .isEqualTo(200);
      assertThat(keyed.get("/v1/mesh/steward").json().get("grants_honoured").asBoolean()).isTrue();
    }
  }

  @Test
  void witness_receiptOfAnotherSteward_isNoEvidence() {
    JsonNode energy;
    try (Fixture other = new Fixture()) {
      energy =
          other
              .post("/v1/chat/completions", Fixture.chat("Elsewhere."))
              .json()
              .get("usage")
              .get("energy");
    }
    ObjectNode shown = Fixture.JSON.createObjectNode();
    shown.set("receipt", energy.get("receipt"));
    shown.set("envelope_hex", energy.get("envelope_hex"));
    f.post("/v1/mesh/witness", shown).error(422, "not_evidence");
    assertThat(f.steward.grantsSuspended()).isEmpty();
    f.post("/v1/mesh/witness", "{\"receipt\":{}}").error(400, "invalid_field");
  }

  /** A backend that holds each serve until released, to fill the concurrency bound. */
  private static final class HeldEngine implements ServingEngine {
    final CountDownLatch entered = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);

    @Override
    public String name() {
      return "held";
    }

    @Override
    public Recipe recipe() {
      return Recipe.of("held");
    }

    @Override
    public Fidelity fidelity() {
      return Fidelity.F0;
    }

    @Override
    public CostProfile costProfile() {
      return CostProfile.perToken(1);
    }

    @Override
    public EngineResult serve(ServeRequest request, TokenSequence prompt) {
      entered.countDown();
      try {
        release.await(10, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return new EngineResult(TokenSequence.of(1), ServeOutcome.greedy(prompt.size(), 1));
    }
  }

  @Test
  void overload_beyondTheConcurrencyBound_is429() throws Exception {
    HeldEngine held = new HeldEngine();
    try (Fixture busy =
        new Fixture(SigningKey.generate(), b -> b.backend(held), b -> b.maxConcurrentServes(1))) {
      CompletableFuture<HttpResponse<String>> first =
          busy.http.sendAsync(
              HttpRequest.newBuilder(busy.uri("/v1/chat/completions"))
                  .header("Content-Type", "application/json")
                  .POST(HttpRequest.BodyPublishers.ofString(Fixture.chat("first").toString()))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(held.entered.await(10, TimeUnit.SECONDS)).isTrue();
      busy.post("/v1/chat/completions", Fixture.chat("second")).error(429, "overloaded");
      held.release.countDown();
      assertThat(first.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
      assertThat(busy.post("/v1/chat/completions", Fixture.chat("third")).status()).isEqualTo(200);
    }
  }
}
