// The README tour through a client typed by openapi-typescript's output for the service's document
// (generated/schema.d.ts, made at test time from the served document) and openapi-fetch.
// tests/e2e/api/test_generated_clients.py compiles it under `tsc --strict`; it is not run.
import createClient from "openapi-fetch";
import type { components, paths, webhooks } from "./generated/schema";

type Schemas = components["schemas"];
type Body<K extends keyof webhooks> = webhooks[K]["post"]["requestBody"]["content"]["application/json"];
export type Notification = Body<"TRANSFER"> | Body<"RECEIVE"> | Body<"REFUND"> | Body<"MED"> | Body<"PING">;

function ok<T>(answer: { data?: T; error?: unknown }): T {
  if (answer.data === undefined) throw new Error(`refused: ${JSON.stringify(answer.error)}`);
  return answer.data;
}

export async function tour(base: string, clientId: string, clientSecret: string, cert: string): Promise<void> {
  const open = createClient<paths>({ baseUrl: base });
  const token: Schemas["TokenResponse"] = ok(
    await open.POST("/api/auth/token", {
      body: { clientId, clientSecret },
      params: { header: { "X-SSL-Client-Cert": cert } },
    }),
  );
  const jwks: Schemas["Jwks"] = ok(await open.GET("/.well-known/jwks.json"));
  const kid: string | undefined = jwks.keys[0]?.kid;

  const api = createClient<paths>({ baseUrl: base, headers: { Authorization: `Bearer ${token.access_token}` } });
  const central = ok(await api.GET("/accounts/balances"));
  const standard = ok(await api.GET("/balance"));
  const net: number = standard.netBalance;

  const receipt = ok(await api.POST("/sandbox/payments", { body: { pixKey: "maria@example.com", amount: 100 } }));
  ok(
    await api.POST("/sandbox/dict", {
      body: { pixKey: "joao@otherbank.example", ispb: "12345678", name: "Joao Souza", document: "11144477735" },
    }),
  );
  const transfer: Schemas["TransferOut"] = ok(
    await api.POST("/dict/pix", {
      body: { pixKey: "joao@otherbank.example", payment: { currency: "BRL", amount: 25.5 } },
      params: { header: { "x-idempotency-key": crypto.randomUUID() } },
    }),
  );
  const transferId: number = transfer.id;

  const txid = "pedido0000000000000000000001";
  const charge = ok(
    await api.PUT("/cob/{txid}", {
      params: { path: { txid } },
      body: { calendario: { expiracao: 3600 }, valor: { original: "12.00" }, solicitacaoPagador: "Pedido 1" },
    }),
  );
  const payment = ok(await api.POST("/sandbox/payments", { body: { pixCopiaECola: charge.location } }));
  const paid = ok(await api.GET("/cob/{txid}", { params: { path: { txid } } }));
  const refunds: Schemas["RefundOut"][] = paid.pix?.[0]?.devolucoes ?? [];
  const refund: Schemas["RefundOut"] = ok(
    await api.PUT("/pix/{e2eid}/devolucao/{refund_id}", {
      params: { path: { e2eid: payment.endToEndId, refund_id: "tour1" } },
      body: { valor: "2.00" },
    }),
  );
  const cashIn = ok(
    await api.POST("/api/pix/cash-in", {
      body: {
        transaction: { value: 10, description: "tour", externalId: "order-1", expirationTime: 3600 },
        payer: { fullName: "Ana Lima", document: "11144477735" },
      },
    }),
  );

  const page = ok(await api.GET("/api/transactions", { params: { query: { page: 1, size: 50 } } }));
  const pages: number = page.metadata.totalPages;
  const record = ok(await api.GET("/api/pix/transaction/{id}", { params: { path: { id: String(transferId) } } }));

  const secret: string = ok(await api.GET("/api/webhooks/secret")).secret;
  const registered: Schemas["RegisteredOut"] = ok(
    await api.POST("/api/webhooks", { body: { url: "https://hooks.example.com/pix", eventType: "cash_in" } }),
  );
  const webhookId: number = registered.id;
  const listed = ok(await api.GET("/api/webhooks"));
  const deliveries = ok(await api.GET("/api/webhooks/deliveries", { params: { query: { limit: 20 } } }));
  console.log(kid, central, net, receipt, refunds, refund, cashIn, pages, record, secret, webhookId, listed, deliveries);
}

/** What a receiver does with a notification: the type narrows the body. */
export function describe(notification: Notification): string {
  switch (notification.type) {
    case "TRANSFER":
      return `${notification.data.status} ${notification.data.payment.amount} to ${notification.data.pixKey}`;
    case "RECEIVE":
      return `received ${notification.data.payment.amount} (${notification.data.txId ?? "no charge"})`;
    case "REFUND":
      return `${notification.data.creditDebitType} refund of ${notification.data.refunds.length}`;
    case "MED":
      return `MED ${notification.data.status} ${notification.data.reason}`;
    case "PING":
      return `ping of webhook ${notification.data.webhookId} at ${notification.data.sentAt}`;
  }
}
