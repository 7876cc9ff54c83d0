package org.meshjava.jcp;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import org.meshjava.core.ContentId;
import org.meshjava.core.DenialLabel;
import org.meshjava.core.IdentifiedRequest;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.identity.DidKey;

/**
 * The JCP enforcement point of one steward, deciding as the holder of the grants it serves (§2
 * phase 2, §7 item 1). Two phases:
 *
 * <ol>
 *   <li>{@link #decide} before the engine runs, over the frame: action {@code infer}, resource the
 *       request id, the model's weights digest if the backend names one, and the decision time. It
 *       checks, in order: the presentation (caller is the leaf's issuer, signature covers the
 *       request); the chain ({@link GrantChain#verify()}: every signature, linkage, attenuation,
 *       known caveats); that the leaf is held by this gate; then on every link, root first, the
 *       window, revocation, the action, the resource and every cost-independent caveat ({@link
 *       ModelIn}); finally, atomically in the {@link SpendLedger}, that the (leaf, nonce) pair is
 *       unspent and that every link has at least the request's joule ceiling left. The first
 *       failure is thrown with its label. The first three checks read nothing but the presentation
 *       and this gate's holder, so a caller may make them earlier, alone, with {@link
 *       #verifyPresentation}; {@code decide} begins with that same call, whose answers it finds
 *       remembered. {@link #screen} adds, at a time given, the checks that need no backend and no
 *       spend, as a filter a caller applies before taking anything scarce; {@code decide} makes
 *       them again at its own time.
 *   <li>{@link #debit} after the work: the metered joules are debited against every link, and a
 *       cost-dependent caveat ({@link MaxCostUj}) is judged. A breach is reported, never undone.
 * </ol>
 *
 * <p><b>Concurrency.</b> Thread-safe. An admitted decision reserves the request's joule ceiling on
 * every link until its debit settles it (or {@link #release} returns it), and the ledger performs
 * check-and-reserve atomically. So any number of threads presenting against one grant can never
 * have more admitted than its budget: on every link, debits plus reservations stay within the
 * budget as long as each serve's metered joules stay within its ceiling.
 *
 * <p><b>Replay.</b> Decisions depend only on the arguments, the revocations and the ledger, never
 * on a clock, so a journal that replays {@code decide} at its recorded times and {@code debit} with
 * its recorded figures, in order, rebuilds the same ledger.
 *
 * <p><b>Memory.</b> A presentation carries no validity of its own: it can be accepted only while
 * every link of its chain is valid, so its life ends at the earliest expiry in the chain. The
 * ledger forgets a spent nonce, and a link's spend, once decisions have reached that instant (see
 * {@link SpendLedger#reserve(GrantId, PresentationNonce, List, long, Instant)}), so a steward's
 * memory follows its unexpired grants, not its history.
 */
public final class Gate {
  /** The most chains {@link #verifiedChains} holds, so hostile input cannot grow it. */
  private static final int VERIFIED_CACHE_LIMIT = 65_536;

  private final DidKey holder;
  private final SpendLedger ledger;
  private final Revocations revocations;

  /**
   * Chains (by every link's id) that passed every check of {@link #verifyPresentation} but the
   * caller's: verified and held here.
   */
  private final java.util.Set<List<GrantId>> verifiedChains =
      java.util.concurrent.ConcurrentHashMap.newKeySet();

  /**
   * The most chains {@link #verifiedChains} holds; cleared when full.
   *
   * <p>Design note, on a flood. Any key can issue a root to this steward, so a client can present
   * chain after distinct valid chain, each held here and remembered, and clear the memo every
   * {@code verifiedLimit} of them; every chain then in use is verified once more, on its next
   * serve. That is correct, only slower, and bounded: each flooding request cost this gate at least
   * two signature checks of its own (its caller's, its one link's), so a clearing costs at most
   * {@code L × k} checks more for {@code L} chains in use of {@code k} links each, over at least
   * {@code 2 × (verifiedLimit − L)} spent on the flood since the last one: the flood's cost to the
   * gate is multiplied by at most {@code 1 + L × k / (2 × (verifiedLimit − L))}, under 2 while
   * {@code L × (k + 2)} stays below {@code 2 × verifiedLimit} (131 072: some 30 000 chains of two
   * links in use at once). A memo that keeps the chains in use through a flood (two generations, or
   * a share per root) would save at most that, so it is left until a steward serving that many
   * chains measures the need.
   */
  private final int verifiedLimit;

  private Gate(DidKey holder, SpendLedger ledger, Revocations revocations) {
    this(holder, ledger, revocations, VERIFIED_CACHE_LIMIT);
  }

  /** A gate that remembers at most {@code verifiedLimit} verified chains; for the bound's test. */
  Gate(DidKey holder, SpendLedger ledger, Revocations revocations, int verifiedLimit) {
    this.verifiedLimit = verifiedLimit;
    this.holder = Objects.requireNonNull(holder, "holder");
    this.ledger = Objects.requireNonNull(ledger, "ledger");
    this.revocations = Objects.requireNonNull(revocations, "revocations");
  }

  /**
   * Returns a gate for the steward {@code holder} (the {@code did:key} of the key it seals receipts
   * with), keeping spend in {@code ledger} and consulting {@code revocations}.
   */
  public static Gate create(DidKey holder, SpendLedger ledger, Revocations revocations) {
    return new Gate(holder, ledger, revocations);
  }

  /** Returns the holder this gate decides as. */
  public DidKey holder() {
    return holder;
  }

  /** Returns the revocations this gate consults (a journal replay adds the ones it recorded). */
  public Revocations revocations() {
    return revocations;
  }

  /** Returns the spend ledger. */
  public SpendLedger ledger() {
    return ledger;
  }

  /**
   * Decides a serve of {@code request} on {@code model} at {@code decisionTime}, and on success
   * reserves the request's joule ceiling on every link.
   *
   * @param model the weights digest of the chosen backend, empty when it names none
   * @throws GrantRefusedException with the label of the first check that failed
   */
  public Authorisation decide(
      Presentation presentation,
      ServeRequest request,
      Optional<ContentId> model,
      Instant decisionTime)
      throws GrantRefusedException {
    Objects.requireNonNull(presentation, "presentation");
    return decide(presentation, IdentifiedRequest.of(request), model, decisionTime);
  }

  /**
   * Decides as {@link #decide(Presentation, ServeRequest, Optional, Instant)}, over the request id
   * handed with the request (a steward encodes its request once per serve), so the request is not
   * encoded and hashed again here. Thread-safe as that method.
   *
   * @param model the weights digest of the chosen backend, empty when it names none
   * @throws GrantRefusedException with the label of the first check that failed
   */
  public Authorisation decide(
      Presentation presentation,
      IdentifiedRequest identified,
      Optional<ContentId> model,
      Instant decisionTime)
      throws GrantRefusedException {
    Objects.requireNonNull(presentation, "presentation");
    Objects.requireNonNull(identified, "request");
    Objects.requireNonNull(model, "model");
    Objects.requireNonNull(decisionTime, "decisionTime");
    ServeRequest request = identified.request();
    ContentId requestId = identified.id();
    // Made again, never assumed made: free when the caller made it first (the presentation
    // remembers its request, this gate the chain), and what refuses for a caller that did not.
    verifyPresentation(presentation, requestId);
    GrantChain chain = presentation.chain();
    List<LinkBudget> budgets = new ArrayList<>(chain.links().size());
    for (int i = 0; i < chain.links().size(); i++) {
      SignedGrant link = chain.links().get(i);
      Grant g = link.grant();
      checkAt(i, link, requestId, model, decisionTime, true);
      budgets.add(new LinkBudget(link.id(), g.budgetUj(), g.expiry()));
    }
    Reservation reservation =
        ledger.reserve(
            presentation.grantId(),
            presentation.nonce(),
            budgets,
            request.jouleCeilingUj(),
            decisionTime);
    return new Authorisation(
        this, presentation, requestId, request.jouleCeilingUj(), model, decisionTime, reservation);
  }

  /**
   * Re-creates an authorisation that was open when a journal snapshot was taken (§2.2), over the
   * reservation the snapshot's ledger state holds for it, so the debit that follows the snapshot
   * settles it as the original would have. Decides nothing: the decision was made and journalled
   * before the snapshot.
   *
   * @param reservation the reservation, as restored in this gate's ledger
   * @throws IllegalArgumentException if the reservation is not the presentation's
   */
  public Authorisation resume(
      Presentation presentation,
      ServeRequest request,
      Optional<ContentId> model,
      Instant decisionTime,
      Reservation reservation) {
    Objects.requireNonNull(request, "request");
    return resume(presentation, IdentifiedRequest.of(request), model, decisionTime, reservation);
  }

  /**
   * Resumes as {@link #resume(Presentation, ServeRequest, Optional, Instant, Reservation)}, over
   * the request id handed with the request (a journal's record holds it), so the request is not
   * encoded and hashed again for each authorisation a restart resumes.
   *
   * @param reservation the reservation, as restored in this gate's ledger
   * @throws IllegalArgumentException if the reservation is not the presentation's
   */
  public Authorisation resume(
      Presentation presentation,
      IdentifiedRequest identified,
      Optional<ContentId> model,
      Instant decisionTime,
      Reservation reservation) {
    Objects.requireNonNull(presentation, "presentation");
    Objects.requireNonNull(identified, "request");
    ServeRequest request = identified.request();
    Objects.requireNonNull(model, "model");
    Objects.requireNonNull(decisionTime, "decisionTime");
    Objects.requireNonNull(reservation, "reservation");
    if (!reservation.leaf().equals(presentation.grantId())
        || !reservation.nonce().equals(presentation.nonce())
        || reservation.amountUj() != request.jouleCeilingUj()) {
      throw new IllegalArgumentException(
          "reservation " + reservation.serial() + " does not hold this presentation's ceiling");
    }
    return new Authorisation(
        this,
        presentation,
        identified.id(),
        request.jouleCeilingUj(),
        model,
        decisionTime,
        reservation);
  }

  /**
   * Makes the checks of {@link #decide} that depend on nothing but {@code presentation} and this
   * gate's holder, in {@code decide}'s order: the caller is the leaf's issuer and signed for {@code
   * requestId} (§2.1); every link's signature, the chain's linkage, its attenuation and its caveat
   * kinds ({@link GrantChain#verify()}); and that the leaf's subject is this gate's holder. Their
   * answer for a presentation can never change, so a steward makes them before a serve takes
   * anything scarce (a backend's slot) and outside the lock that orders its decisions; a
   * presentation that fails them is refused there with the label {@code decide} would give it, as
   * these are {@code decide}'s first checks.
   *
   * <p>Passing them admits nothing. Everything that depends on the decision's time or on state is
   * left to {@code decide}, which makes these checks again (remembered, so at no cost) and then the
   * rest: each link's window at the decision time, its revocation (one recorded between this call
   * and the decision refuses it), the action, the resource and the cost-independent caveats, and in
   * the ledger the spent presentation and the budget. So no grant expired or revoked by the time of
   * its decision gets through for having passed here first.
   *
   * <p>Signatures are verified once per presentation (the caller's, for one request id) and once
   * per chain at this gate (every link's): a chain whose every link id matches one that passed
   * before is byte for byte that chain, each id being BLAKE3 over the link's signed bytes. The key
   * is every link's id, not the leaf's alone: a verified leaf behind a forged parent must still be
   * refused. Only a chain that passed every check, the holder's included, is remembered, so a flood
   * of chains held elsewhere does not push out those held here. Thread-safe; records nothing.
   *
   * @throws GrantRefusedException with the label of the first check that failed: {@code not-issuer}
   *     or {@code bad-signature} for the caller (then {@link
   *     GrantRefusedException#callerNotAuthenticated()}), else {@code bad-signature}, {@code
   *     broken-chain}, {@code not-attenuated}, {@code unknown-caveat} or {@code wrong-holder}
   */
  public void verifyPresentation(Presentation presentation, ContentId requestId)
      throws GrantRefusedException {
    Objects.requireNonNull(presentation, "presentation");
    Objects.requireNonNull(requestId, "requestId");
    presentation.verifyFor(requestId);
    GrantChain chain = presentation.chain();
    List<GrantId> ids = chain.ids();
    if (verifiedChains.contains(ids)) {
      return;
    }
    chain.verify();
    DidKey leafSubject = chain.leaf().grant().subject();
    if (!leafSubject.equals(holder)) {
      throw new GrantRefusedException(
          DenialLabel.WRONG_HOLDER,
          "the grant is held by " + leafSubject + ", not by this steward " + holder,
          chain.links().size() - 1);
    }
    if (verifiedChains.size() >= verifiedLimit) {
      verifiedChains.clear();
    }
    verifiedChains.add(ids);
  }

  /**
   * Makes, at {@code at}, every check of {@link #decide} that needs neither the chosen backend nor
   * the lock that orders decisions, in {@code decide}'s order (SPEC.md 30 §8): those of {@link
   * #verifyPresentation}; then on every link, root first, the window at {@code at}, the revocation
   * at {@code at}, the action and the resource; then that every link's whole budget covers the
   * request's joule ceiling. A steward makes them before a serve takes a backend's slot, at a
   * reading of its decision clock, so a chain valid in itself but expired, not yet valid, revoked,
   * granting another action or request, or too small for its ceiling (a holder delegating to itself
   * with a budget of 0 or an expiry in the past) is refused there, with the label {@code decide}
   * gives it at that time, and holds nothing scarce.
   *
   * <p>A filter, never a decision: passing admits nothing, reserves nothing and records nothing,
   * and {@code decide} makes every check again at the decision's own time. Nothing it lets through
   * does {@code decide} let through unchecked; and what it refuses, {@code decide} at a later time
   * refuses too, since an expiry and a revocation, once reached, stay reached, and a link never has
   * more left than its budget. Only {@code not-yet-valid}, or a clock that steps back, can see a
   * later decision admit what it refused; such a presentation was refused at the time it arrived.
   * The {@code ModelIn} caveats are left to {@code decide}: they name the backend's weights, and a
   * steward routes only to a backend the chain's {@code ModelIn} admits. The budget is judged by
   * each link's whole budget, not by what it has left, which a concurrent serve's release may raise
   * before the decision (so a refusal names the link whose budget is least, where {@code decide}
   * names the one with least left, after spend perhaps another); and the spent pair, which step 8
   * checks first, is not read here (a steward restarted from a snapshot reads it from a mapped
   * file, whose faults only the decision is guarded against). So a presentation both spent and too
   * small for its ceiling is refused {@code budget-exhausted} here where {@code decide} says {@code
   * presentation-spent}: it can only be one its caller signed again with a nonce it had used and a
   * larger ceiling, since a budget never changes and the first serve of that pair was admitted.
   *
   * <p>Thread-safe; reads the revocations, changes nothing.
   *
   * @param at a reading of the clock decisions are timed by, made now
   * @throws GrantRefusedException with the label of the first check that failed: those of {@link
   *     #verifyPresentation}, else {@code not-yet-valid}, {@code expired}, {@code revoked}, {@code
   *     action-not-permitted}, {@code resource-not-permitted} or {@code budget-exhausted}
   */
  public void screen(Presentation presentation, IdentifiedRequest identified, Instant at)
      throws GrantRefusedException {
    Objects.requireNonNull(presentation, "presentation");
    Objects.requireNonNull(identified, "request");
    Objects.requireNonNull(at, "at");
    ContentId requestId = identified.id();
    verifyPresentation(presentation, requestId);
    List<SignedGrant> links = presentation.chain().links();
    for (int i = 0; i < links.size(); i++) {
      checkAt(i, links.get(i), requestId, Optional.empty(), at, false);
    }
    long ceiling = identified.request().jouleCeilingUj();
    int least = 0;
    for (int i = 1; i < links.size(); i++) {
      if (links.get(i).grant().budgetUj() < links.get(least).grant().budgetUj()) {
        least = i;
      }
    }
    long budget = links.get(least).grant().budgetUj();
    if (budget < ceiling) {
      throw new GrantRefusedException(
          DenialLabel.BUDGET_EXHAUSTED,
          "link "
              + links.get(least).id()
              + " grants "
              + budget
              + " µJ in all, below the "
              + ceiling
              + " µJ ceiling",
          least);
    }
  }

  /** How many verified chains are remembered; for the bound's test. */
  int verifiedChainCount() {
    return verifiedChains.size();
  }

  /**
   * Step 7 of the decision on link {@code i} at {@code t}; {@code ModelIn} only when {@code
   * backendKnown} ({@link #screen} runs before the backend's weights are read).
   */
  private void checkAt(
      int i,
      SignedGrant link,
      ContentId requestId,
      Optional<ContentId> model,
      Instant t,
      boolean backendKnown)
      throws GrantRefusedException {
    Grant g = link.grant();
    if (t.isBefore(g.notBefore())) {
      throw new GrantRefusedException(
          DenialLabel.NOT_YET_VALID, "valid from " + g.notBefore() + ", decided at " + t, i);
    }
    if (!t.isBefore(g.expiry())) {
      throw new GrantRefusedException(
          DenialLabel.EXPIRED, "expired at " + g.expiry() + ", decided at " + t, i);
    }
    Optional<Instant> revoked = revocations.revokedFrom(link.id());
    if (revoked.isPresent() && !t.isBefore(revoked.get())) {
      throw new GrantRefusedException(
          DenialLabel.REVOKED, "revoked from " + revoked.get() + ", decided at " + t, i);
    }
    if (!g.actions().contains(Grant.INFER)) {
      throw new GrantRefusedException(
          DenialLabel.ACTION_NOT_PERMITTED, "permits " + g.actions() + ", not infer", i);
    }
    if (!g.resources().permits(requestId)) {
      throw new GrantRefusedException(
          DenialLabel.RESOURCE_NOT_PERMITTED, "does not permit request " + requestId, i);
    }
    for (Caveat c : g.caveats()) {
      switch (c) {
        case ModelIn m -> {
          if (backendKnown && !m.admits(model)) {
            throw new GrantRefusedException(
                DenialLabel.CAVEAT_UNSATISFIED,
                "ModelIn does not admit "
                    + model.map(ContentId::hex).orElse("a backend that names no weights"),
                i);
          }
        }
        case MaxCostUj m -> {
          // Cost-dependent: judged at debit, once the joules are known.
        }
        case UnknownCaveat u ->
            // GrantChain.verify() refuses these first; kept so the switch stays fail-closed.
            throw new GrantRefusedException(
                DenialLabel.UNKNOWN_CAVEAT, "caveat kind '" + u.kind() + "' is not understood", i);
      }
    }
  }

  /**
   * Debits {@code meteredUj} against every link of the authorised chain, replacing its reservation,
   * and judges the cost-dependent caveats. The debit is applied even when it breaches the grant:
   * the work ran.
   *
   * @throws IllegalStateException if the authorisation was already settled or released
   * @throws IllegalArgumentException if it came from another gate, or {@code meteredUj} is negative
   */
  public DebitResult debit(Authorisation authorisation, long meteredUj) {
    ownAuthorisation(authorisation);
    if (meteredUj < 0) {
      throw new IllegalArgumentException("metered joules are non-negative: " + meteredUj);
    }
    List<LinkSpend> after = ledger.settle(authorisation.reservation(), meteredUj);
    List<LinkBudget> budgets = authorisation.reservation().links();
    long remaining = Long.MAX_VALUE;
    boolean overspent = false;
    Instant chainExpiry = Instant.MAX;
    for (int i = 0; i < after.size(); i++) {
      long r = after.get(i).remainingUj(budgets.get(i).budgetUj());
      overspent |= r < 0;
      remaining = Math.min(remaining, r);
      Instant expiry = budgets.get(i).expiry();
      chainExpiry = expiry.isBefore(chainExpiry) ? expiry : chainExpiry;
    }
    Optional<DenialLabel> breach = Optional.empty();
    OptionalLong maxCost = authorisation.maxCostUj();
    if (maxCost.isPresent() && meteredUj > maxCost.getAsLong()) {
      breach = Optional.of(DenialLabel.CAVEAT_UNSATISFIED);
    } else if (overspent) {
      breach = Optional.of(DenialLabel.BUDGET_EXHAUSTED);
    }
    return new DebitResult(
        authorisation.grantId(), meteredUj, breach, Math.max(0, remaining), chainExpiry);
  }

  /**
   * Returns an authorisation's reservation without a debit, for a serve that failed before any work
   * was done (no backend, the journal refused the record, the engine refused to start). The
   * presentation stays spent; the caller signs a new one to try again. Do not release a serve whose
   * engine may have run: debit it.
   *
   * @throws IllegalStateException if the authorisation was already settled or released
   * @throws IllegalArgumentException if it came from another gate
   */
  public void release(Authorisation authorisation) {
    ownAuthorisation(authorisation);
    ledger.release(authorisation.reservation());
  }

  /**
   * Returns what {@code chain} has left at this steward: the least, over its links, of budget less
   * debits and reservations, never below 0. Does not verify the chain.
   */
  public long remainingUj(GrantChain chain) {
    long remaining = Long.MAX_VALUE;
    for (SignedGrant link : chain.links()) {
      remaining = Math.min(remaining, ledger.spend(link.id()).remainingUj(link.grant().budgetUj()));
    }
    return Math.max(0, remaining);
  }

  private void ownAuthorisation(Authorisation authorisation) {
    Objects.requireNonNull(authorisation, "authorisation");
    if (authorisation.gate() != this) {
      throw new IllegalArgumentException("the authorisation was made by another gate");
    }
  }

  @Override
  public String toString() {
    return "Gate[" + holder + "]";
  }
}
