//! TLS to PostgreSQL with rustls, honouring libpq's `sslmode` and `sslrootcert` URL
//! parameters (which the `postgres` crate's own parser does not all take):
//!
//! | `sslmode` | TLS | the server's certificate |
//! | --- | --- | --- |
//! | `disable` | never | — |
//! | `allow`, `prefer` (the default) | when the server offers it, else plain | not checked (libpq's meaning); checked against `sslrootcert` when one is given |
//! | `require` | always (a server without TLS is refused) | as `prefer` |
//! | `verify-ca` | always | signed by `sslrootcert` (a PEM file; `system` or none: the Mozilla roots) |
//! | `verify-full` | always | as `verify-ca`, and issued for the host connected to |
//!
//! Only `verify-full` stops an attacker on the network path from reading or rewriting
//! what the server says (a run, a decision): use it across any network you do not own.
//!
//! The connector implements `tokio-postgres`'s `MakeTlsConnect` over `tokio-rustls` (as
//! the `tokio-postgres-rustls` crate does, without channel binding, so without its
//! extra dependencies).

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use postgres::config::SslMode;
use postgres::tls::{ChannelBinding, MakeTlsConnect, TlsConnect, TlsStream};
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::{verify_tls12_signature, verify_tls13_signature, CryptoProvider};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{
    CertificateError, ClientConfig, DigitallySignedStruct, RootCertStore, SignatureScheme,
};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// What the URL asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verify {
    /// `disable`.
    Off,
    /// `allow` / `prefer` / `require` without `sslrootcert`: encrypted, not checked.
    Encrypt,
    /// `verify-ca` (or `prefer`/`require` with `sslrootcert`): the chain to a root.
    Ca,
    /// `verify-full`: the chain and the host name.
    Full,
}

/// A database URL split into what the `postgres` crate parses and the TLS settings.
#[derive(Debug)]
pub struct Parsed {
    /// The URL without `sslmode` and `sslrootcert`.
    pub url: String,
    /// The `sslmode` (libpq's default `prefer` when absent).
    pub ssl_mode: SslMode,
    /// What of the server's certificate is checked.
    pub verify: Verify,
    /// `sslrootcert`: a PEM file, or `None` for the Mozilla roots.
    pub root: Option<String>,
}

/// `%XX` decoding of a URL parameter value.
fn decode(v: &str) -> String {
    let bytes = v.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (b, hex) {
            (b'%', Some(x)) => {
                out.push(x);
                i += 3;
            }
            _ => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Splits `sslmode` and `sslrootcert` off `url`.
pub fn parse(url: &str) -> Result<Parsed, String> {
    let (base, query) = url.split_once('?').unwrap_or((url, ""));
    let (mut mode, mut root) = (None::<String>, None::<String>);
    let mut kept = Vec::new();
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        match k {
            "sslmode" => mode = Some(decode(v)),
            "sslrootcert" => root = Some(decode(v)),
            _ => kept.push(pair),
        }
    }
    let root = root.filter(|r| r != "system");
    let (ssl_mode, verify) = match mode.as_deref() {
        Some("disable") => (SslMode::Disable, Verify::Off),
        None | Some("allow" | "prefer") => (
            SslMode::Prefer,
            if root.is_some() {
                Verify::Ca
            } else {
                Verify::Encrypt
            },
        ),
        Some("require") => (
            SslMode::Require,
            if root.is_some() {
                Verify::Ca
            } else {
                Verify::Encrypt
            },
        ),
        Some("verify-ca") => (SslMode::Require, Verify::Ca),
        Some("verify-full") => (SslMode::Require, Verify::Full),
        Some(other) => {
            return Err(format!(
                "sslmode `{other}`: disable, allow, prefer, require, verify-ca or verify-full"
            ))
        }
    };
    let url = if kept.is_empty() {
        base.to_string()
    } else {
        format!("{base}?{}", kept.join("&"))
    };
    Ok(Parsed {
        url,
        ssl_mode,
        verify,
        root,
    })
}

fn provider() -> Arc<CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

/// The roots a certificate is checked against: the PEM file `root`, or the Mozilla
/// roots.
fn roots(root: Option<&str>) -> Result<RootCertStore, String> {
    let mut store = RootCertStore::empty();
    match root {
        Some(path) => {
            let certs = CertificateDer::pem_file_iter(path)
                .map_err(|e| format!("sslrootcert {path}: {e}"))?
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| format!("sslrootcert {path}: {e}"))?;
            if certs.is_empty() {
                return Err(format!("sslrootcert {path}: no certificate in it"));
            }
            for c in certs {
                store
                    .add(c)
                    .map_err(|e| format!("sslrootcert {path}: {e}"))?;
            }
        }
        None => store.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned()),
    }
    Ok(store)
}

/// The rustls configuration for `verify` (none for [`Verify::Off`]).
pub fn client_config(verify: Verify, root: Option<&str>) -> Result<Option<ClientConfig>, String> {
    let builder = ClientConfig::builder_with_provider(provider())
        .with_safe_default_protocol_versions()
        .map_err(|e| e.to_string())?;
    let config = match verify {
        Verify::Off => return Ok(None),
        Verify::Full => builder
            .with_root_certificates(roots(root)?)
            .with_no_client_auth(),
        Verify::Ca => {
            let inner = rustls::client::WebPkiServerVerifier::builder_with_provider(
                Arc::new(roots(root)?),
                provider(),
            )
            .build()
            .map_err(|e| e.to_string())?;
            builder
                .dangerous()
                .with_custom_certificate_verifier(Arc::new(ChainOnly(inner)))
                .with_no_client_auth()
        }
        Verify::Encrypt => builder
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(Unchecked(provider())))
            .with_no_client_auth(),
    };
    Ok(Some(config))
}

/// `verify-ca`: the chain must lead to a root; the name is not compared.
#[derive(Debug)]
struct ChainOnly(Arc<rustls::client::WebPkiServerVerifier>);

impl ServerCertVerifier for ChainOnly {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        match self
            .0
            .verify_server_cert(end_entity, intermediates, server_name, ocsp, now)
        {
            Err(rustls::Error::InvalidCertificate(
                CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. },
            )) => Ok(ServerCertVerified::assertion()),
            other => other,
        }
    }
    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls12_signature(message, cert, dss)
    }
    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls13_signature(message, cert, dss)
    }
    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.supported_verify_schemes()
    }
}

/// `prefer` / `require` without a root: encrypted against a passive listener, the
/// certificate not checked (libpq's meaning of these modes). The handshake's signatures
/// are still verified.
#[derive(Debug)]
struct Unchecked(Arc<CryptoProvider>);

impl ServerCertVerifier for Unchecked {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }
    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls12_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }
    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls13_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }
    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}

/// `MakeTlsConnect` over tokio-rustls.
#[derive(Clone)]
pub struct Rustls(pub Arc<ClientConfig>);

/// One connection's TLS handshake, for host `name`.
pub struct Connect {
    config: Arc<ClientConfig>,
    name: ServerName<'static>,
}

/// A TLS stream to the server.
pub struct Stream<S>(tokio_rustls::client::TlsStream<S>);

impl<S> MakeTlsConnect<S> for Rustls
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    type Stream = Stream<S>;
    type TlsConnect = Connect;
    type Error = io::Error;

    fn make_tls_connect(&mut self, domain: &str) -> io::Result<Connect> {
        let name = ServerName::try_from(domain.to_string())
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
        Ok(Connect {
            config: self.0.clone(),
            name,
        })
    }
}

impl<S> TlsConnect<S> for Connect
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    type Stream = Stream<S>;
    type Error = io::Error;
    type Future = Pin<Box<dyn Future<Output = io::Result<Stream<S>>> + Send>>;

    fn connect(self, stream: S) -> Self::Future {
        Box::pin(async move {
            let tls = tokio_rustls::TlsConnector::from(self.config)
                .connect(self.name, stream)
                .await?;
            Ok(Stream(tls))
        })
    }
}

impl<S: AsyncRead + AsyncWrite + Unpin> AsyncRead for Stream<S> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.0).poll_read(cx, buf)
    }
}

impl<S: AsyncRead + AsyncWrite + Unpin> AsyncWrite for Stream<S> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.0).poll_write(cx, buf)
    }
    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.0).poll_flush(cx)
    }
    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.0).poll_shutdown(cx)
    }
}

impl<S: AsyncRead + AsyncWrite + Unpin> TlsStream for Stream<S> {
    fn channel_binding(&self) -> ChannelBinding {
        ChannelBinding::none()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_and_roots_come_off_the_url() {
        let p = parse(
            "postgres://u@h/db?sslmode=verify-full&sslrootcert=%2Fetc%2Fca.pem&application_name=x",
        )
        .expect("parse");
        assert_eq!(p.url, "postgres://u@h/db?application_name=x");
        assert_eq!((p.ssl_mode, p.verify), (SslMode::Require, Verify::Full));
        assert_eq!(p.root.as_deref(), Some("/etc/ca.pem"));
        let p = parse("postgres://u@h/db").expect("parse");
        assert_eq!((p.ssl_mode, p.verify), (SslMode::Prefer, Verify::Encrypt));
        let p = parse("postgres://u@h/db?sslmode=require&sslrootcert=ca.pem").expect("parse");
        assert_eq!(p.verify, Verify::Ca);
        let p = parse("postgres://u@h/db?sslmode=verify-ca&sslrootcert=system").expect("parse");
        assert_eq!((p.verify, p.root), (Verify::Ca, None));
        assert_eq!(
            parse("postgres://u@h/db?sslmode=disable")
                .expect("parse")
                .verify,
            Verify::Off
        );
        assert!(parse("postgres://u@h/db?sslmode=maybe").is_err());
    }
}
