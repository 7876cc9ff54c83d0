package org.meshjava.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.meshjava.core.ContentId;
import org.meshjava.core.ServeRequest;
import org.meshjava.core.cbor.CborMap;
import org.meshjava.core.crypto.SigningKey;
import org.meshjava.core.internal.RequestCbor;
import org.meshjava.jcp.Caveat;
import org.meshjava.jcp.GrantChain;
import org.meshjava.jcp.IssuanceException;
import org.meshjava.jcp.Jcp;
import org.meshjava.jcp.MaxCostUj;
import org.meshjava.jcp.ModelIn;
import org.meshjava.jcp.Presentation;
import org.meshjava.jcp.Revocation;
import org.meshjava.jcp.Shard;
import org.meshjava.jcp.SignedGrant;
import org.meshjava.openai.BindingException;
import org.meshjava.openai.GrantedServeRequest;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code mesh grant issue|delegate|shard|present|show|revoke}: the caller's grant tools (§2.1,
 * JCP). Chains, presentations and revocations are files of one hex line; keys are {@link KeyFile}s.
 */
@Command(
    name = "grant",
    description = "Issue, delegate, shard and present grants; files of one hex line.",
    subcommands = {
      GrantCommand.Issue.class,
      GrantCommand.Delegate.class,
      GrantCommand.ShardCommand.class,
      GrantCommand.Present.class,
      GrantCommand.Show.class,
      GrantCommand.Revoke.class
    })
final class GrantCommand extends CommandGroup {
  /** What a chain file holds, for a refusal to overwrite one. */
  private static final String CHAIN = "a grant chain";

  /** What a new link grants (issue, delegate): its budget and the caveats that narrow it. */
  static final class Terms {
    @Option(
        names = "--budget-uj",
        required = true,
        paramLabel = "UJ",
        description = "The budget in microjoules.")
    long budgetUj;

    @ArgGroup(exclusive = false)
    Caveats caveats = new Caveats();

    /** The budget, refused naming the flag if negative. */
    long budget() throws CliException {
      return GrantFiles.nonNegative("--budget-uj", budgetUj);
    }

    Caveat[] caveats() throws CliException {
      return caveats.toArray();
    }
  }

  /** Narrowing caveats any new grant may carry. */
  static final class Caveats {
    @Option(
        names = "--model-in",
        paramLabel = "DIGEST",
        split = ",",
        description = "Permit only backends whose weights digest is one of these (hex).")
    List<String> modelIn = new ArrayList<>();

    @Option(
        names = "--max-cost-uj",
        paramLabel = "UJ",
        description = "Refuse any one serve that costs more.")
    Long maxCostUj;

    Caveat[] toArray() throws CliException {
      List<Caveat> out = new ArrayList<>();
      if (!modelIn.isEmpty()) {
        List<ContentId> ids = new ArrayList<>();
        for (String d : modelIn) {
          try {
            ids.add(ContentId.fromHex(d));
          } catch (IllegalArgumentException e) {
            throw new CliException("--model-in " + d + ": " + e.getMessage(), e);
          }
        }
        out.add(ModelIn.of(ids.toArray(ContentId[]::new)));
      }
      if (maxCostUj != null) {
        out.add(new MaxCostUj(GrantFiles.nonNegative("--max-cost-uj", maxCostUj)));
      }
      return out.toArray(Caveat[]::new);
    }
  }

  /**
   * A grant tool that signs something the JCP library may refuse (a budget above the parent's, a
   * key that is not the leaf's subject, …): the refusal is one line, {@code refused:} and why. A
   * value the library rejects (an expiry before the start) is an {@link IllegalArgumentException},
   * which the command's error handler prints as its one line.
   */
  abstract static class Signer extends MeshCommand implements Callable<Integer> {
    @Option(
        names = "--force",
        description = "Overwrite an output file that exists (refused otherwise, naming it).")
    boolean force;

    @Override
    public final Integer call() throws CliException {
      try {
        sign();
        return 0;
      } catch (IssuanceException e) {
        throw new CliException("refused: " + e.getMessage(), e);
      }
    }

    /** Signs what the tool makes and writes it. */
    abstract void sign() throws CliException, IssuanceException;

    /**
     * Refuses, before the first of several files is written, to overwrite any of {@code files} that
     * exists without {@code --force}: a command that writes several writes none.
     *
     * @param kind what the files hold, for the message
     */
    final void refuseToOverwrite(String kind, Path... files) throws CliException {
      for (Path f : files) {
        UserFile.refuseToOverwrite(f, kind, force);
      }
    }

    /**
     * Writes {@code text} as the one line of {@code file}, whole or not at all, refusing a file
     * that exists without {@code --force}, and says so, and what it is, on stdout.
     *
     * @param kind what the file holds, for a refusal: {@code "a grant chain"}
     */
    final void write(Path file, String text, String kind, String what) throws CliException {
      UserFile.writeOutput(file, (text + "\n").getBytes(StandardCharsets.UTF_8), kind, force);
      out().println("wrote " + file + ": " + what);
    }
  }

  /**
   * The chain a tool reads (delegate, shard, present, show): {@code --chain}, a file of one hex
   * line. (Revoke takes its own {@code --chain}, described for what it revokes.)
   */
  static final class ChainFile {
    @Option(
        names = "--chain",
        required = true,
        paramLabel = "FILE",
        description = "The grant chain, one hex line; - reads standard input.")
    InputFile file;

    GrantChain read() throws CliException {
      return GrantFiles.readChain(file);
    }

    /**
     * The chain, with a warning on {@code warnings} for each link outside its time window now. A
     * steward refuses whatever is made from such a link (403 {@code expired} or {@code
     * not-yet-valid}); the tool still signs, since the steward's clock decides, but says so here
     * rather than leave the user to learn it from the refusal.
     */
    GrantChain readWarningOutsideWindow(PrintWriter warnings) throws CliException {
      GrantChain chain = read();
      Instant now = Instant.now();
      for (int i = 0; i < chain.links().size(); i++) {
        SignedGrant link = chain.links().get(i);
        String which = "warning: " + file + ": link " + i + " (grant " + link.id() + ")";
        if (!now.isBefore(link.grant().expiry())) {
          warnings.println(
              which
                  + " expired at "
                  + link.grant().expiry()
                  + ": a steward refuses it (403 expired); have its issuer issue a new grant");
        } else if (now.isBefore(link.grant().notBefore())) {
          warnings.println(
              which
                  + " is valid only from "
                  + link.grant().notBefore()
                  + ": a steward refuses it before then (403 not-yet-valid)");
        }
      }
      return chain;
    }
  }

  /** A chain its holder delegates or shards, and the holder's key, which signs the new links. */
  static final class HeldChain {
    @Option(
        names = "--holder-key",
        required = true,
        paramLabel = "FILE",
        description =
            "The key of the chain leaf's subject (its holder), which signs the new links.")
    Path holderKey;

    @Mixin ChainFile chain;

    SigningKey key(PrintWriter warnings) throws CliException {
      return KeyFile.read(holderKey, warnings);
    }

    GrantChain chain(PrintWriter warnings) throws CliException {
      return chain.readWarningOutsideWindow(warnings);
    }
  }

  private static void describe(PrintWriter out, GrantChain chain) {
    for (int i = 0; i < chain.links().size(); i++) {
      SignedGrant g = chain.links().get(i);
      out.println(
          "link "
              + i
              + ": grant "
              + g.id()
              + " issuer "
              + g.grant().issuer()
              + " subject "
              + g.grant().subject()
              + " budget "
              + g.grant().budgetUj()
              + " uJ, until "
              + g.grant().expiry());
    }
  }

  @Command(
      name = "issue",
      description = "Issue a root grant to a subject (a steward, or a holder who will delegate).")
  static final class Issue extends Signer {
    @Option(
        names = "--issuer-key",
        required = true,
        paramLabel = "FILE",
        description = "The key that issues (signs) the grant.")
    Path issuerKey;

    @Option(
        names = "--subject",
        required = true,
        paramLabel = "DID",
        description = "Who holds it: the steward's did:key (GET /v1/mesh/steward).")
    String subject;

    @Mixin Terms terms;

    @Option(
        names = "--not-before",
        defaultValue = "now",
        paramLabel = "WHEN",
        description =
            "When it starts: an instant or a duration from now, as --expires (default: now).")
    String notBefore;

    @Option(
        names = "--expires",
        required = true,
        paramLabel = "WHEN",
        description = "An instant (2026-12-31T00:00:00Z) or a duration from now (PT24H).")
    String expires;

    @Option(
        names = "--out",
        required = true,
        paramLabel = "FILE",
        description = "The grant chain to write, one hex line.")
    Path out;

    @Override
    void sign() throws CliException, IssuanceException {
      Instant now = Instant.now();
      // Grants carry whole seconds (SPEC 30 §2) and the library truncates to them, so the checks
      // run on what will be signed: two instants within one second make an empty window.
      Instant from = GrantFiles.when(notBefore, now).truncatedTo(ChronoUnit.SECONDS);
      Instant until = GrantFiles.when(expires, now).truncatedTo(ChronoUnit.SECONDS);
      // The library names its fields (expiry, not_before); the user typed the flags.
      GrantFiles.sinceEpoch("--not-before", from);
      if (!until.isAfter(from)) {
        throw new CliException(
            "--expires ("
                + until
                + ") must be after --not-before ("
                + from
                + "), counting whole seconds: grants carry no fraction of one");
      }
      GrantChain chain =
          Jcp.issueRoot(
              KeyFile.read(issuerKey, err()),
              GrantFiles.did(subject),
              terms.budget(),
              from,
              until,
              terms.caveats());
      write(out, chain.toHex(), CHAIN, "grant " + chain.leaf().id());
    }
  }

  @Command(
      name = "revoke",
      description =
          "Sign a revocation of a grant from a time on, for stewards to load"
              + " (mesh serve --revocations, or POST /v1/mesh/revocations).")
  static final class Revoke extends Signer {
    @Option(
        names = "--issuer-key",
        required = true,
        paramLabel = "FILE",
        description = "The key of an issuer of the revoked link or of a link above it.")
    Path issuerKey;

    @Option(
        names = "--chain",
        required = true,
        paramLabel = "FILE",
        description = "A chain containing the grant to revoke; - reads standard input.")
    InputFile chainFile;

    @Option(
        names = "--link",
        paramLabel = "N",
        description = "Revoke link N of the chain (0 is the root; default: the leaf).")
    Integer link;

    @Option(
        names = "--from",
        defaultValue = "now",
        paramLabel = "WHEN",
        description = "Refuse decisions from this instant on (default: now).")
    String from;

    @Option(
        names = "--out",
        required = true,
        paramLabel = "FILE",
        description = "The revocation to write, one hex line.")
    Path out;

    @Override
    void sign() throws CliException, IssuanceException {
      GrantChain chain = GrantFiles.readChain(chainFile);
      int index = link == null ? chain.links().size() - 1 : link;
      if (index < 0 || index >= chain.links().size()) {
        throw new CliException(
            "--link " + index + ": the chain has links 0 to " + (chain.links().size() - 1));
      }
      GrantChain upTo = new GrantChain(chain.links().subList(0, index + 1));
      Revocation r =
          Revocation.sign(
              KeyFile.read(issuerKey, err()),
              upTo,
              GrantFiles.sinceEpoch("--from", GrantFiles.when(from, Instant.now())));
      write(
          out,
          r.toHex(),
          "a revocation",
          "grant " + r.grantId() + " revoked from " + r.from() + " by " + r.revoker());
    }
  }

  @Command(
      name = "delegate",
      description = "Delegate a chain's leaf to a new subject with a smaller budget.")
  static final class Delegate extends Signer {
    @Mixin HeldChain held;

    @Option(
        names = "--subject",
        required = true,
        paramLabel = "DID",
        description =
            "Who holds the new link: a steward's did:key, or a holder's who delegates on.")
    String subject;

    @Mixin Terms terms;

    @Option(
        names = "--out",
        required = true,
        paramLabel = "FILE",
        description = "The longer chain to write, one hex line.")
    Path out;

    @Override
    void sign() throws CliException, IssuanceException {
      GrantChain chain =
          Jcp.delegate(
              held.key(err()),
              held.chain(err()),
              GrantFiles.did(subject),
              terms.budget(),
              terms.caveats());
      write(
          out,
          chain.toHex(),
          CHAIN,
          "grant " + chain.leaf().id() + " (" + chain.links().size() + " links)");
    }
  }

  @Command(
      name = "shard",
      description = "Shard a chain's leaf into one child per steward; shares must sum within it.")
  static final class ShardCommand extends Signer {
    @Mixin HeldChain held;

    @Option(
        names = "--share",
        required = true,
        paramLabel = "DID=UJ",
        description = "A steward and its budget; repeat for each.")
    List<String> shares;

    @Option(
        names = "--out-dir",
        required = true,
        paramLabel = "DIR",
        description = "Writes shard-1.hex, shard-2.hex, … in --share order.")
    Path outDir;

    @Override
    void sign() throws CliException, IssuanceException {
      List<Shard> list = new ArrayList<>();
      for (String s : shares) {
        int eq = s.lastIndexOf('=');
        if (eq < 0) {
          throw new CliException("--share " + s + ": expected DID=UJ");
        }
        try {
          list.add(
              new Shard(GrantFiles.did(s.substring(0, eq)), Long.parseLong(s.substring(eq + 1))));
        } catch (NumberFormatException e) {
          throw new CliException("--share " + s + ": the budget is not a whole number", e);
        } catch (IllegalArgumentException e) {
          throw new CliException("--share " + s + ": " + e.getMessage(), e);
        }
      }
      Path[] files = new Path[list.size()];
      for (int i = 0; i < files.length; i++) {
        files[i] = outDir.resolve("shard-" + (i + 1) + ".hex");
      }
      List<GrantChain> out = Jcp.shard(held.key(err()), held.chain(err()), list);
      refuseToOverwrite(CHAIN, files);
      for (int i = 0; i < out.size(); i++) {
        write(
            files[i],
            out.get(i).toHex(),
            CHAIN,
            list.get(i).budgetUj() + " uJ held by " + list.get(i).steward());
      }
    }
  }

  /** Exactly one source of the request a presentation is signed for. */
  static final class RequestSource {
    @Option(
        names = "--body",
        paramLabel = "FILE",
        description =
            "An OpenAI request body; the request is granted_serve_request of it. - reads"
                + " standard input.")
    InputFile body;

    @Option(
        names = "--request",
        paramLabel = "FILE",
        description =
            "A ServeRequest as JSON: prompt_hash, prompt_tokens, max_tokens, fidelity_floor,"
                + " joule_ceiling_uj. - reads standard input.")
    InputFile request;
  }

  @Command(
      name = "present",
      description = "Sign a presentation of a chain for one request (the leaf's issuer signs).")
  static final class Present extends Signer {
    @Option(
        names = "--caller-key",
        required = true,
        paramLabel = "FILE",
        description = "The key of the chain leaf's issuer, which signs the presentation.")
    Path callerKey;

    @Mixin ChainFile chain;

    @ArgGroup(exclusive = true, multiplicity = "1")
    RequestSource source;

    @Option(
        names = "--out",
        required = true,
        paramLabel = "FILE",
        description = "The presentation, one hex line.")
    Path out;

    @Option(
        names = "--out-body",
        paramLabel = "FILE",
        description =
            "With --body: also write the body with jcp_presentation added, ready to POST.")
    Path outBody;

    @Override
    void sign() throws CliException, IssuanceException {
      ServeRequest request;
      if (outBody != null && source.body == null) {
        // Refused before --out is written: a failure must not leave half its output behind.
        throw new CliException("--out-body needs --body");
      }
      JsonNode body = null;
      if (source.body != null) {
        try {
          // Read as the server reads what it is sent, so the id signed is the id it derives.
          body = GrantedServeRequest.parseBody(UserFile.readBytes(source.body, "body"));
          request = GrantedServeRequest.derive(body);
          // A body the endpoint refuses as unsupported would be signed for nothing.
          GrantedServeRequest.refuseUnserved(body);
        } catch (BindingException e) {
          throw new CliException(source.body + ": " + e.getMessage(), e);
        }
      } else {
        request = requestFromJson(source.request, GrantFiles.readJson(source.request));
      }
      Presentation p =
          Jcp.present(
              KeyFile.read(callerKey, err()), chain.readWarningOutsideWindow(err()), request);
      refuseToOverwrite("a presentation", out);
      if (outBody != null) {
        refuseToOverwrite("a request body", outBody);
      }
      write(
          out,
          p.toHex(),
          "a presentation",
          "presentation of grant " + p.grantId() + " for request " + request.id());
      if (outBody != null) {
        if (body == null || !body.isObject()) {
          throw new CliException("--out-body needs --body");
        }
        ((ObjectNode) body).put("jcp_presentation", p.toHex());
        write(outBody, body.toString(), "a request body", "the body with jcp_presentation");
      }
    }

    private static ServeRequest requestFromJson(InputFile file, JsonNode json) throws CliException {
      try {
        CborMap.Builder b = CborMap.builder();
        for (var e : json.properties()) {
          JsonNode v = e.getValue();
          if (v.isTextual()) {
            b.put(e.getKey(), v.asText());
          } else if (v.isIntegralNumber() && v.canConvertToLong()) {
            b.put(e.getKey(), v.asLong());
          } else {
            throw new CliException(
                file + ": request field " + e.getKey() + " must be text or a whole number");
          }
        }
        return RequestCbor.decode(b.build());
      } catch (IllegalArgumentException e) {
        throw new CliException(file + " is not a request: " + e.getMessage(), e);
      }
    }
  }

  @Command(name = "show", description = "Print a chain's links.")
  static final class Show extends MeshCommand implements Callable<Integer> {
    @Mixin ChainFile chain;

    @Override
    public Integer call() throws CliException {
      describe(out(), chain.read());
      return 0;
    }
  }
}
