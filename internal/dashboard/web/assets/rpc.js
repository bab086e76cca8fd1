// JSON-RPC 2.0 over the gateway WebSocket. The browser never holds a
// long-lived credential: each connection gets a fresh single-use ticket
// from POST /api/auth/ws-ticket (session cookie + same-origin fetch).

export class RPCError extends Error {
  constructor(err) {
    super((err.data && err.data.reason) || err.message || 'error');
    this.code = err.code;
    this.reason = err.data && err.data.reason;
    this.detail = (err.data && err.data.detail) || '';
  }
}

export class Gateway extends EventTarget {
  constructor() {
    super();
    this.ws = null;
    this.nextID = 1;
    this.pending = new Map();
    this.backoff = 500;
    this.stopped = false;
  }

  state(s) { this.dispatchEvent(new CustomEvent('state', { detail: s })); }

  async connect() {
    this.state('connecting');
    const res = await fetch('/api/auth/ws-ticket', { method: 'POST', credentials: 'same-origin' });
    if (res.status === 401) { this.dispatchEvent(new Event('unauthorized')); throw new Error('signed out'); }
    if (!res.ok) throw new Error('ticket: HTTP ' + res.status);
    const { ticket } = await res.json();
    const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
    const url = `${scheme}//${location.host}/api/ws?ticket=${encodeURIComponent(ticket)}`;
    await new Promise((resolve, reject) => {
      const ws = new WebSocket(url, ['hermes-gateway-v1']);
      let ready = false;
      ws.onmessage = (m) => {
        const msg = JSON.parse(m.data);
        if (!ready && msg.method === 'event' && msg.params.type === 'gateway.ready') {
          ready = true; this.ws = ws; this.backoff = 500; this.state('online'); resolve();
          return;
        }
        this.onFrame(msg);
      };
      ws.onclose = () => {
        if (!ready) { reject(new Error('connection refused')); return; }
        this.onClose();
      };
    });
  }

  onFrame(msg) {
    if (msg.method === 'event') {
      this.dispatchEvent(new CustomEvent('event', { detail: msg.params }));
      return;
    }
    const p = this.pending.get(msg.id);
    if (!p) return;
    this.pending.delete(msg.id);
    if (msg.error) p.reject(new RPCError(msg.error)); else p.resolve(msg.result);
  }

  onClose() {
    this.ws = null;
    for (const p of this.pending.values()) p.reject(new Error('disconnected'));
    this.pending.clear();
    this.state('offline');
    if (!this.stopped) this.reconnectLater();
  }

  reconnectLater() {
    const wait = this.backoff;
    this.backoff = Math.min(this.backoff * 2, 10000);
    setTimeout(async () => {
      try {
        await this.connect();
        this.dispatchEvent(new Event('reconnected'));
      } catch (e) {
        if (e.message !== 'signed out') this.reconnectLater();
      }
    }, wait);
  }

  call(method, params = {}) {
    if (!this.ws) return Promise.reject(new Error('not connected'));
    const id = this.nextID++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.ws.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    });
  }
}
