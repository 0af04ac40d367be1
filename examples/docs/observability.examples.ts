/**
 * docs/observability.md's snippet, type-checked. Not run here: test/telemetry/propagation-switch.test.ts runs the
 * same options against the reference server with the real OpenTelemetry SDK.
 */
import { StreamableHttpTransport, TaskClient } from 'mcp-tasks-client';

// #region switch
// A server run by a third party: spans are still recorded here, nothing of the trace reaches it.
const vendor = new TaskClient({
  transport: new StreamableHttpTransport('https://mcp.vendor.example/mcp'),
  traceContext: false,
});
// Your own server, which reads the tenant from W3C baggage: traceparent, tracestate and baggage.
const internal = new TaskClient({
  transport: new StreamableHttpTransport('https://tasks.internal.example/mcp'),
  traceContext: 'with-baggage',
});
// #endregion switch
await vendor.close();
await internal.close();
