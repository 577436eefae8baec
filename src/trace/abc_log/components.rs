//! DroidRacer's environment model of activities, services and broadcast receivers (Maiya et al., PLDI 2014,
//! section 4: the happens-before rules of the Android environment), as the edges of
//! dependence.txt. Each rule orders an operation that causes a callback (a request, a send, a
//! registration, the previous callback of the same component) before the post of the handler
//! that runs the callback: the environment posts that handler, so without the edge the model
//! checker could run it before its cause. docs/abc-log.md lists the rules.
//!
//! The model is fed every TRIGGER-SERVICE and TRIGGER-BROADCAST in operation-id order, also
//! those the trace leaves out (a binder thread's ABC_TRIGGER_ONRECIEVE_LATER): they carry the
//! state, not edges. It speaks of log operations (indices into the typed operations) and of
//! the message whose handler runs a callback; the converter maps both to trace positions.

use rustc_hash::FxHashMap;

/// A callback of the model: the operation and the message of the handler it runs in.
#[derive(Clone, Copy, Debug)]
pub struct Callback {
    pub op: usize,
    /// The operation's id in the log (what `onRecLater:` refers to).
    pub id: u64,
    pub task: Option<u64>,
    pub tid: u32,
}

/// One edge of the model, before positions are known.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Edge {
    /// Operation -> the post of the handler of the message.
    OpToPost(usize, u64),
    /// The post of one message's handler -> the post of another's.
    PostToPost(u64, u64),
}

/// A started and/or bound service, from its first request to its STOP-SERVICE.
#[derive(Default)]
struct Service {
    first_create_request: Option<usize>,
    first_bind_request: Option<usize>,
    first_stop_request: Option<usize>,
    created: bool,
    bind: Option<usize>,
    /// The last callback of each of the two state machines (started, bound).
    prev_started: Option<(Callback, &'static str)>,
    prev_bound: Option<(Callback, &'static str)>,
    /// REQUEST_UNBIND_SERVICEs made while a connection to the service was bound.
    unbind_requests: Vec<usize>,
}

/// A connection's bind request for one service, and whether it was unbound since.
struct Binding {
    service: Vec<u8>,
    request: usize,
    unbound: bool,
}

/// How an onReceive came about: the send (if the app sent it, with the sending thread) and the
/// registration (if the receiver was registered at run time).
#[derive(Clone, Copy, Default)]
struct Delivery {
    send: Option<(usize, u32)>,
    register: Option<usize>,
}

#[derive(Default)]
pub struct Components<'a> {
    /// Activity (by instance; by intent id from LAUNCH-ACT to its INSTANCE-INTENT) -> its
    /// latest lifecycle callback and that callback's state.
    activities: FxHashMap<&'a [u8], (Callback, &'a [u8])>,
    services: FxHashMap<&'a [u8], Service>,
    /// Start request by its intent id.
    start_requests: FxHashMap<u64, usize>,
    /// Connection object -> its bindings, one per service.
    connections: FxHashMap<u64, Vec<Binding>>,
    /// Intent id -> the operation that sent it, and its thread.
    sent: FxHashMap<u64, (usize, u32)>,
    /// (receiver, action) -> the registration in force (the first since it was unregistered).
    registered: FxHashMap<(&'a [u8], &'a [u8]), usize>,
    /// ABC_TRIGGER_ONRECIEVE_LATER (by operation id) -> what it delivers.
    pending: FxHashMap<u64, Delivery>,
    /// Sends of the app (operation, thread) and the messages of the onReceives they caused.
    deliveries: Vec<((usize, u32), Vec<u64>)>,
    /// The post of the application's BIND-APP handler: every onReceive is posted after it.
    pub app_bind_task: Option<u64>,
    pub edges: Vec<Edge>,
}

impl<'a> Components<'a> {
    /// `prev` -> `cur` in one state machine: when they ran in different handlers of one
    /// thread, the earlier handler's post precedes the later one's (the looper ran them in
    /// that order because the environment posted them in that order).
    fn successor(&mut self, prev: Callback, cur: Callback) {
        if prev.tid == cur.tid && prev.task != cur.task {
            if let (Some(a), Some(b)) = (prev.task, cur.task) {
                self.edges.push(Edge::PostToPost(a, b));
            }
        }
    }

    fn orders_post(&mut self, op: Option<usize>, cur: Callback) {
        if let (Some(o), Some(m)) = (op, cur.task) {
            self.edges.push(Edge::OpToPost(o, m));
        }
    }

    /// A TRIGGER-LIFECYCLE of an activity: a callback follows the previous one of the same
    /// activity when the activity's life cycle allows that transition (a launch starts the
    /// machine, a destroy ends it).
    pub fn activity(&mut self, cur: Callback, id: &'a [u8], state: &'a [u8]) {
        let allowed: &[&[u8]] = match state {
            b"LAUNCH-ACT" => {
                self.activities.insert(id, (cur, state));
                return;
            }
            b"RESUME-ACT" => &[b"LAUNCH-ACT", b"START-ACT", b"PAUSE-ACT", b"STOP-ACT", b"NEW_INTENT", b"RESULT-ACT"],
            b"START-ACT" | b"DESTROY-ACT" => &[b"STOP-ACT"],
            b"PAUSE-ACT" => &[b"RESUME-ACT"],
            b"STOP-ACT" => &[b"PAUSE-ACT"],
            b"RESULT-ACT" => &[b"STOP-ACT", b"NEW_INTENT"],
            b"NEW_INTENT" => &[b"RESULT-ACT", b"PAUSE-ACT", b"STOP-ACT"],
            _ => return,
        };
        let Some(&(prev, prev_state)) = self.activities.get(id) else { return };
        if allowed.contains(&prev_state) {
            self.successor(prev, cur);
        }
        if state == b"DESTROY-ACT" {
            self.activities.remove(id);
        } else {
            self.activities.insert(id, (cur, state));
        }
    }

    /// INSTANCE-INTENT: the activity launched by intent `intent` is the object `instance`.
    pub fn instance(&mut self, instance: &'a [u8], intent: &'a [u8]) {
        if let Some(a) = self.activities.remove(intent) {
            self.activities.insert(instance, a);
        }
    }

    /// A TRIGGER-SERVICE: `name` the service class (empty for REQUEST_UNBIND_SERVICE), `id`
    /// the intent id or connection object, `state` the callback or request.
    pub fn service(&mut self, cur: Callback, name: &'a [u8], id: u64, state: &[u8]) {
        if state == b"REQUEST_UNBIND_SERVICE" {
            for b in self.connections.get_mut(&id).into_iter().flatten() {
                if !b.unbound {
                    b.unbound = true;
                    if let Some(s) = self.services.get_mut(&b.service[..]) {
                        s.unbind_requests.push(cur.op);
                    }
                }
            }
            return;
        }
        match state {
            b"REQUEST_START_SERVICE" => {
                self.start_requests.insert(id, cur.op);
                self.services
                    .entry(name)
                    .or_insert_with(|| Service { first_create_request: Some(cur.op), ..Default::default() });
            }
            b"REQUEST_BIND_SERVICE" => {
                let bindings = self.connections.entry(id).or_default();
                match bindings.iter_mut().find(|b| b.service == name) {
                    // A connection unbound and bound again: the new request replaces the old.
                    Some(b) if b.unbound => {
                        b.request = cur.op;
                        b.unbound = false;
                    }
                    Some(_) => {}
                    None => bindings.push(Binding { service: name.to_vec(), request: cur.op, unbound: false }),
                }
                let s = self
                    .services
                    .entry(name)
                    .or_insert_with(|| Service { first_create_request: Some(cur.op), ..Default::default() });
                s.first_bind_request.get_or_insert(cur.op);
            }
            b"REQUEST_STOP_SERVICE" => {
                if let Some(s) = self.services.get_mut(name) {
                    s.first_stop_request.get_or_insert(cur.op);
                }
            }
            b"CREATE-SERVICE" => {
                let Some(s) = self.services.get_mut(name).filter(|s| !s.created) else { return };
                s.created = true;
                s.prev_started = Some((cur, "CREATE-SERVICE"));
                s.prev_bound = Some((cur, "CREATE-SERVICE"));
                let req = s.first_create_request;
                self.orders_post(req, cur);
            }
            b"BIND-SERVICE" => {
                let Some(s) = self.services.get_mut(name).filter(|s| s.created && s.bind.is_none()) else {
                    return;
                };
                s.bind = Some(cur.op);
                let (req, prev) = (s.first_bind_request, s.prev_bound.replace((cur, "BIND-SERVICE")));
                self.orders_post(req, cur);
                if let Some((p, _)) = prev {
                    self.successor(p, cur);
                }
            }
            b"UNBIND-SERVICE" => {
                let Some(s) = self.services.get_mut(name).filter(|s| s.bind.is_some()) else { return };
                let reqs = std::mem::take(&mut s.unbind_requests);
                let prev = s.prev_bound.replace((cur, "UNBIND-SERVICE"));
                s.bind = None;
                s.first_bind_request = None;
                for r in reqs {
                    self.orders_post(Some(r), cur);
                }
                if let Some((p, _)) = prev {
                    self.successor(p, cur);
                }
            }
            b"SERVICE-ARGS" => {
                let Some(s) = self.services.get_mut(name).filter(|s| s.created) else { return };
                let prev = s.prev_started.replace((cur, "SERVICE-ARGS"));
                let req = self.start_requests.remove(&id);
                self.orders_post(req, cur);
                if let Some((p, _)) = prev {
                    self.successor(p, cur);
                }
            }
            b"SERVICE_CONNECT" => {
                let bind = self.services.get(name).and_then(|s| s.bind);
                self.orders_post(bind, cur);
                // The connection's request for this service, if it came before the callback.
                let req = self
                    .connections
                    .get(&id)
                    .and_then(|bs| bs.iter().find(|b| b.service == name))
                    .map(|b| b.request)
                    .filter(|&r| r < cur.op);
                self.orders_post(req, cur);
            }
            b"STOP-SERVICE" => {
                let Some(s) = self.services.remove(name).filter(|s| s.created) else { return };
                let (Some((pb, bstate)), Some((ps, sstate))) = (s.prev_bound, s.prev_started) else { return };
                // Stopped once bound and unbound, or started: not right after its creation.
                if bstate == "CREATE-SERVICE" && sstate == "CREATE-SERVICE" {
                    return;
                }
                self.successor(pb, cur);
                self.successor(ps, cur);
                if sstate != "CREATE-SERVICE" {
                    self.orders_post(s.first_stop_request, cur);
                }
            }
            _ => {}
        }
    }

    /// A TRIGGER-BROADCAST: `receiver` the receiver object (0 for a send), `intent` the
    /// intent id, `later` the ABC_TRIGGER_ONRECIEVE_LATER an onReceive comes from.
    pub fn broadcast(
        &mut self,
        cur: Callback,
        receiver: &'a [u8],
        action: &'a [u8],
        intent: u64,
        later: i64,
        state: &[u8],
    ) {
        let delivery = |me: &Self| Delivery {
            send: me.sent.get(&intent).copied(),
            register: me.registered.get(&(receiver, action)).copied(),
        };
        match state {
            b"ABC_SEND_BROADCAST" | b"ABC_SEND_STICKY_BROADCAST" => {
                self.sent.insert(intent, (cur.op, cur.tid));
            }
            b"ABC_REGISTER_RECEIVER" => {
                self.registered.entry((receiver, action)).or_insert(cur.op);
            }
            b"ABC_UNREGISTER_RECEIVER" => self.registered.retain(|(r, _), _| *r != receiver),
            b"ABC_TRIGGER_ONRECIEVE_LATER" => {
                let d = delivery(self);
                self.pending.insert(cur.id, d);
            }
            b"ABC_ONRECEIVE" => {
                let Some(m) = cur.task else { return };
                if let Some(b) = self.app_bind_task {
                    self.edges.push(Edge::PostToPost(b, m));
                }
                let d = match u64::try_from(later).ok().and_then(|l| self.pending.get(&l)) {
                    Some(&d) => d,
                    None => delivery(self),
                };
                self.orders_post(d.send.map(|s| s.0), cur);
                self.orders_post(d.register, cur);
                if let Some(s) = d.send {
                    match self.deliveries.iter_mut().find(|(o, _)| *o == s) {
                        Some((_, ms)) => ms.push(m),
                        None => self.deliveries.push((s, vec![m])),
                    }
                }
            }
            _ => {}
        }
    }

    /// Broadcasts sent in order are received in order: when one thread sent two broadcasts,
    /// every onReceive of the first is posted before every onReceive of the second.
    pub fn finish(&mut self) {
        for (i, ((s1, t1), ms1)) in self.deliveries.iter().enumerate() {
            for ((s2, t2), ms2) in &self.deliveries[i + 1..] {
                if t1 != t2 {
                    continue;
                }
                let (a, b) = if s1 < s2 { (ms1, ms2) } else { (ms2, ms1) };
                for &m1 in a {
                    for &m2 in b {
                        self.edges.push(Edge::PostToPost(m1, m2));
                    }
                }
            }
        }
    }
}
