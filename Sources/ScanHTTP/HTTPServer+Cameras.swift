import HTTPTypes
import Hummingbird
import HummingbirdWebSocket
import NIOCore

extension HTTPServer {
    /// The routes of each camera (issue 49), under `/cameras/NAME/`: the page (the same page as `/`, whose
    /// relative requests then reach this camera's routes), `stream.mjpg`, `snapshot.jpg`, `state` and
    /// `POST rect-of-interest`. A name that is no camera's is 404.
    func addCameraRoutes(_ router: Router<BasicWebSocketRequestContext>) {
        router.get("/cameras") { [self] _, _ -> Response in
            json(["cameras": previews.names])
        }
        router.get("/cameras/:camera") { [self] request, context -> Response in
            let name = try context.parameters.require("camera")
            guard previews.frames(of: name) != nil else { return noCamera(name) }
            // The page's requests are relative: without the slash they would leave the camera's folder.
            guard request.uri.path.hasSuffix("/") else {
                return Response(status: .permanentRedirect, headers: [.location: "/cameras/\(name)/"])
            }
            return pageResponse()
        }
        router.get("/cameras/:camera/snapshot.jpg") { [self] request, context -> Response in
            let name = try context.parameters.require("camera")
            guard let frames = previews.frames(of: name) else { return noCamera(name) }
            return try snapshot(request: request, frames: frames)
        }
        router.get("/cameras/:camera/stream.mjpg") { [self] _, context -> Response in
            let name = try context.parameters.require("camera")
            guard let frames = previews.frames(of: name) else { return noCamera(name) }
            return stream(frames)
        }
        router.get("/cameras/:camera/state") { [self] _, context -> Response in
            let name = try context.parameters.require("camera")
            guard previews.frames(of: name) != nil else { return noCamera(name) }
            return json(stateDocument(camera: name))
        }
        router.post("/cameras/:camera/rect-of-interest") { [self] request, context -> Response in
            let name = try context.parameters.require("camera")
            return try await setRectOfInterest(request: request, context: context, camera: name)
        }
    }

    /// 404 for a camera name that is none of the daemon's.
    func noCamera(_ name: String) -> Response {
        text(.notFound, "no camera '\(name.filter { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })'\n")
    }
}
