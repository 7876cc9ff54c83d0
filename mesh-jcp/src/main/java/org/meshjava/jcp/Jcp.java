package org.meshjava.jcp;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.core.identity.DidKey;

/**
 * The few calls a caller needs: make a key, issue a root grant, delegate, shard, and present for a
 * request. Each returns a {@link GrantChain} ready to present or delegate further.
 *
 * <pre>{@code
 * SigningKey me = Jcp.newKey();
 * GrantChain chain = Jcp.issueRoot(me, stewardDid, 5_000_000, from, until);
 * Presentation p = Jcp.present(me, chain, request);   // send p.toHex() with the request
 * }</pre>
 *
 * <p>Stateless and thread-safe.
 */
public final class Jcp {
  private Jcp() {}

  /** Generates a fresh Ed25519 key. */
  public static SigningKey newKey() {
    return SigningKey.generate();
  }

  /** Returns the {@code did:key} of {@code key}. */
  public static DidKey identity(SigningKey key) {
    return DidKey.of(key.verificationKey());
  }

  /**
   * Issues a root grant permitting {@code infer} on every request, with {@code budgetUj} µJ, from
   * {@code notBefore} to {@code expiry} (both truncated to whole seconds), under {@code caveats}.
   *
   * @throws IssuanceException never in practice: the issuer is the key's own identity
   * @throws IllegalArgumentException if the budget or window is invalid
   */
  public static GrantChain issueRoot(
      SigningKey issuer,
      DidKey subject,
      long budgetUj,
      Instant notBefore,
      Instant expiry,
      Caveat... caveats)
      throws IssuanceException {
    Grant grant =
        Grant.builder()
            .issuer(identity(issuer))
            .subject(subject)
            .budgetUj(budgetUj)
            .window(notBefore, expiry)
            .caveats(List.of(caveats))
            .build();
    return issueRoot(issuer, grant);
  }

  /**
   * Signs any root grant.
   *
   * @throws IssuanceException {@code WRONG_KEY} if the key is not the issuer, {@code BROKEN_CHAIN}
   *     if the grant names a parent
   */
  public static GrantChain issueRoot(SigningKey issuer, Grant grant) throws IssuanceException {
    if (!grant.isRoot()) {
      throw new IssuanceException(IssuanceProblem.BROKEN_CHAIN, "a root grant names no parent");
    }
    return GrantChain.of(SignedGrant.sign(issuer, grant));
  }

  /**
   * Delegates the chain's leaf to {@code subject}: a child with everything the leaf grants, but
   * {@code budgetUj} and the {@code extraCaveats} added (add a narrower {@link ModelIn} or a {@link
   * MaxCostUj} to narrow).
   *
   * @throws IssuanceException {@code WRONG_KEY} if {@code holder} is not the leaf's subject, {@code
   *     NOT_ATTENUATED} if the budget exceeds the leaf's
   */
  public static GrantChain delegate(
      SigningKey holder, GrantChain chain, DidKey subject, long budgetUj, Caveat... extraCaveats)
      throws IssuanceException {
    Grant.Builder b = Grant.delegatedFrom(chain.leaf()).subject(subject).budgetUj(budgetUj);
    for (Caveat c : extraCaveats) {
      b.caveat(c);
    }
    return delegate(holder, chain, b.build());
  }

  /**
   * Signs {@code child} as a delegation of the chain's leaf and appends it, after checking it links
   * to the leaf and grants no more than it.
   *
   * @throws IssuanceException {@code WRONG_KEY}, {@code BROKEN_CHAIN} or {@code NOT_ATTENUATED}
   */
  public static GrantChain delegate(SigningKey holder, GrantChain chain, Grant child)
      throws IssuanceException {
    SignedGrant leaf = chain.leaf();
    if (!identity(holder).equals(leaf.grant().subject())) {
      throw new IssuanceException(
          IssuanceProblem.WRONG_KEY,
          identity(holder) + " does not hold the leaf; its subject is " + leaf.grant().subject());
    }
    if (!child.issuer().equals(leaf.grant().subject())
        || !child.parent().equals(Optional.of(leaf.id()))) {
      throw new IssuanceException(
          IssuanceProblem.BROKEN_CHAIN,
          "a child is issued by its parent's subject and names the parent's id " + leaf.id());
    }
    Optional<String> widened = Attenuation.violation(leaf.grant(), child);
    if (widened.isPresent()) {
      throw new IssuanceException(IssuanceProblem.NOT_ATTENUATED, widened.get());
    }
    return chain.extend(SignedGrant.sign(holder, child));
  }

  /**
   * Shards the chain's leaf into sibling children, one per steward, each a delegation carrying its
   * share of the budget and everything else the leaf grants. Returns one chain per share, in order.
   *
   * <p>The gate cannot see siblings, so what bounds the total is this check at issue time: a holder
   * that signs more children outside this call can overspend across stewards.
   *
   * @throws IssuanceException {@code OVER_SUM} if the shares add up to more than the leaf's budget,
   *     {@code BAD_SHARDS} if there are none or a steward appears twice, {@code WRONG_KEY} if
   *     {@code holder} is not the leaf's subject
   */
  public static List<GrantChain> shard(SigningKey holder, GrantChain chain, List<Shard> shards)
      throws IssuanceException {
    if (shards.isEmpty()) {
      throw new IssuanceException(IssuanceProblem.BAD_SHARDS, "no shares given");
    }
    Set<DidKey> seen = new HashSet<>();
    long sum = 0;
    for (Shard s : shards) {
      if (!seen.add(s.steward())) {
        throw new IssuanceException(
            IssuanceProblem.BAD_SHARDS, "steward " + s.steward() + " named twice");
      }
      try {
        sum = Math.addExact(sum, s.budgetUj());
      } catch (ArithmeticException e) {
        // Saturating would let shares summing to exactly 2^63 - 1 + k pass a Long.MAX budget.
        throw new IssuanceException(IssuanceProblem.OVER_SUM, "shares overflow a 64-bit sum");
      }
    }
    long budget = chain.leaf().grant().budgetUj();
    if (sum > budget) {
      throw new IssuanceException(
          IssuanceProblem.OVER_SUM,
          "shares sum to " + sum + " µJ, more than the parent's " + budget + " µJ");
    }
    List<GrantChain> out = new ArrayList<>(shards.size());
    for (Shard s : shards) {
      out.add(delegate(holder, chain, s.steward(), s.budgetUj()));
    }
    return List.copyOf(out);
  }

  /**
   * Signs a presentation of {@code chain} for {@code request}, with a fresh nonce.
   *
   * @throws IssuanceException {@code WRONG_KEY} if {@code caller} is not the leaf's issuer
   */
  public static Presentation present(SigningKey caller, GrantChain chain, ServeRequest request)
      throws IssuanceException {
    return Presentation.sign(caller, chain, request.id());
  }
}
