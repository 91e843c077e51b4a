//! CPU work on batches: a [`Transform`] is run by [`TransformStage`] on tokio's
//! blocking threads, batch after batch, with its side inputs first, the input's
//! watermarks as they come, and `finish` and `stage_files` at the end.

use async_trait::async_trait;

use crate::error::StageError;
use crate::stage::{Batch, Emitted, Input, SideInputs, Stage, StageIo, Watermark};

/// CPU-bound work on batches, run by the runtime on blocking threads so it never
/// stalls the async I/O threads. Use rayon inside `process` to spread one batch over
/// the cores; keep the output order equal to the input order for reproducible runs.
pub trait Transform: Send + 'static {
    /// Called once, after the side inputs have arrived, before the first batch.
    ///
    /// # Errors
    /// Stops the pipeline.
    fn prepare(&mut self, _side: &mut SideInputs) -> Result<(), StageError> {
        Ok(())
    }

    /// Processes one batch, pushing results and rejections into `out`.
    ///
    /// # Errors
    /// Stops the pipeline; reject bad records through `out` instead where the run can go on.
    fn process(&mut self, batch: Batch, out: &mut Emitted) -> Result<(), StageError>;

    /// Called when the input's watermark advances (see [`Input::Watermark`]): a
    /// stage that holds records back may decide on those nothing can come before.
    ///
    /// # Errors
    /// Stops the pipeline.
    fn watermark(&mut self, _value: Watermark, _out: &mut Emitted) -> Result<(), StageError> {
        Ok(())
    }

    /// Called after the input has closed, for stages that hold records back; called
    /// again while it returns [`Finish::More`], what it pushed sent on in between,
    /// so a stage that holds many records hands them on a part at a time instead
    /// of all at once.
    ///
    /// # Errors
    /// Stops the pipeline.
    fn finish(&mut self, _out: &mut Emitted) -> Result<Finish, StageError> {
        Ok(Finish::Done)
    }

    /// Called after `finish`, and only when every stage upstream of the sinks ended
    /// without an error: sinks stage their files here ([`Emitted::stage_file`]),
    /// which the runtime publishes together once the run completes (see
    /// [`crate::publish`]). A failing stage closes its outputs like a finished one,
    /// so without this wait a sink could stage a file cut short by a failure.
    ///
    /// # Errors
    /// Stops the pipeline.
    fn stage_files(&mut self, _out: &mut Emitted) -> Result<(), StageError> {
        Ok(())
    }
}

/// Whether [`Transform::finish`] has handed on everything it held.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Finish {
    /// Nothing is left: `stage_files` comes next.
    Done,
    /// Call `finish` again once what it pushed is sent on.
    More,
}

/// A transform takes up to this many waiting records per hop to a blocking thread.
const COALESCE_RECORDS: usize = 4096;

/// Runs a [`Transform`] as a [`Stage`]: side inputs first, then each batch on a
/// blocking thread, then `finish`.
pub struct TransformStage<T: Transform>(pub T);

#[async_trait]
impl<T: Transform> Stage for TransformStage<T> {
    async fn run(self: Box<Self>, mut io: StageIo) -> Result<(), StageError> {
        let mut side = io.side_inputs().await?;
        let mut transform = self.0;
        transform = blocking(move || {
            transform.prepare(&mut side)?;
            Ok(transform)
        })
        .await?;
        while let Some(input) = io.recv_input_up_to(COALESCE_RECORDS).await? {
            let (t, emitted) = blocking(move || {
                let mut out = Emitted::default();
                match input {
                    Input::Records(batch) => transform.process(batch, &mut out)?,
                    Input::Watermark(value) => transform.watermark(value, &mut out)?,
                }
                Ok((transform, out))
            })
            .await?;
            transform = t;
            io.emit_all(emitted).await?;
        }
        loop {
            let (t, emitted, finish) = blocking(move || {
                let mut out = Emitted::default();
                let finish = transform.finish(&mut out)?;
                Ok((transform, out, finish))
            })
            .await?;
            transform = t;
            io.emit_all(emitted).await?;
            if finish == Finish::Done {
                break;
            }
        }
        io.flush().await?;
        if !io.upstream_succeeded().await {
            return Ok(());
        }
        let emitted = blocking(move || {
            let mut out = Emitted::default();
            transform.stage_files(&mut out)?;
            Ok(out)
        })
        .await?;
        io.emit_all(emitted).await?;
        io.flush().await
    }
}

/// Runs CPU work on tokio's blocking pool and returns its result.
///
/// # Errors
/// The work's own error, or an internal error if it panicked.
pub async fn blocking<R, F>(work: F) -> Result<R, StageError>
where
    F: FnOnce() -> Result<R, StageError> + Send + 'static,
    R: Send + 'static,
{
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| StageError::internal(format!("stage work panicked: {e}")))?
}
